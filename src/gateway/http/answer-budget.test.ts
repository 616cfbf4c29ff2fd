import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import { HttpError } from "../errors/index.ts";
import { ANSWER_FLOOR_BYTES, AnswerBudget } from "./answer-budget.ts";

const F = ANSWER_FLOOR_BYTES;
const refused = (pattern: RegExp) => (e: unknown) =>
  e instanceof HttpError && e.status === 429 && e.retryable && pattern.test(e.message);

test("one client holds at most its bound; another client's answers still go", () => {
  const b = new AnswerBudget({ maxBytes: 1000 * F, clientMaxBytes: 100 * F });
  const first = b.hold("a", 60 * F);
  b.hold("a", 40 * F);
  assert.throws(
    () => b.hold("a", 1),
    refused(/this client has \d+ bytes .*--unsent-answers-client-mb/),
  );
  assert.throws(() => b.admit("a"), refused(/--unsent-answers-client-mb/));
  b.hold("b", 100 * F);
  first();
  b.admit("a");
  b.hold("a", 60 * F);
  assert.equal(b.held, 200 * F);
  assert.equal(b.clients, 2);
});

test("the gateway's last eighth is for clients that hold nothing", () => {
  const b = new AnswerBudget({ maxBytes: 80 * F, clientMaxBytes: 80 * F });
  const a = b.hold("a", 60 * F);
  // a holds something: it may fill the gateway only to 70 (80 less its eighth).
  assert.throws(
    () => b.hold("a", 11 * F),
    refused(/the gateway holds \d+ bytes .*--unsent-answers-mb/),
  );
  b.hold("a", 10 * F);
  assert.throws(() => b.admit("a"), refused(/--unsent-answers-mb/));
  // b holds nothing: the reserve is its.
  b.admit("b");
  b.hold("b", 10 * F);
  assert.throws(() => b.hold("c", 1), refused(/the gateway holds/));
  a();
  b.hold("c", 60 * F);
  assert.equal(b.held, 80 * F);
});

test("an answer alone always goes, even one larger than both bounds", () => {
  const b = new AnswerBudget({ maxBytes: 10, clientMaxBytes: 10 });
  const release = b.hold("a", 1000 * F);
  assert.equal(b.held, 1000 * F);
  assert.throws(() => b.hold("b", 1), refused(/the gateway holds/));
  release();
  assert.equal(b.held, 0);
  assert.equal(b.clients, 0);
});

test("an answer counts at least the floor", () => {
  const b = new AnswerBudget({ maxBytes: 1000 * F, clientMaxBytes: 4 * F });
  for (let i = 0; i < 4; i++) b.hold("a", 100);
  assert.equal(b.held, 4 * F);
  assert.throws(() => b.hold("a", 1), refused(/--unsent-answers-client-mb/));
});

test("a release counts once", () => {
  const b = new AnswerBudget({ maxBytes: 100 * F, clientMaxBytes: 100 * F });
  const release = b.hold("a", 40 * F);
  b.hold("a", 10 * F);
  release();
  release();
  assert.equal(b.held, 10 * F);
  assert.equal(b.clients, 1);
});

test("property: held is what is held; an answer past a bound is refused unless alone; admit refuses what a floor-sized answer would be refused", () => {
  const op = fc.oneof(
    fc.record({ hold: fc.constantFrom("a", "b", "c"), bytes: fc.integer({ min: 0, max: 80 * F }) }),
    fc.record({ admit: fc.constantFrom("a", "b", "c") }),
    fc.record({ release: fc.nat() }),
  );
  fc.assert(
    fc.property(
      fc.integer({ min: 1, max: 400 * F }),
      fc.integer({ min: 1, max: 100 * F }),
      fc.array(op),
      (max, clientMax, ops) => {
        const b = new AnswerBudget({ maxBytes: max, clientMaxBytes: clientMax });
        const reserve = Math.min(32 * 1024 * 1024, Math.floor(max / 8));
        const live: { client: string; bytes: number; release: () => void }[] = [];
        const fits = (client: string, bytes: number) => {
          const own = live.filter((l) => l.client === client).reduce((s, l) => s + l.bytes, 0);
          const all = live.reduce((s, l) => s + l.bytes, 0);
          const limit = own > 0 ? max - reserve : max;
          return (own === 0 || own + bytes <= clientMax) && (all === 0 || all + bytes <= limit);
        };
        for (const o of ops) {
          if ("release" in o) {
            if (live.length === 0) continue;
            live.splice(o.release % live.length, 1)[0]?.release();
            continue;
          }
          const client = "hold" in o ? o.hold : o.admit;
          const counted = "hold" in o ? Math.max(o.bytes, F) : F;
          const expected = fits(client, counted);
          try {
            if ("hold" in o)
              live.push({ client, bytes: counted, release: b.hold(client, o.bytes) });
            else b.admit(client);
            assert.ok(expected, "let past a bound");
          } catch (e) {
            assert.ok(!expected && e instanceof HttpError && e.status === 429, String(e));
          }
          assert.equal(
            b.held,
            live.reduce((s, l) => s + l.bytes, 0),
          );
        }
        for (const l of live) l.release();
        assert.equal(b.held, 0);
        assert.equal(b.clients, 0);
      },
    ),
  );
});
