import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import { HttpError } from "../errors/index.ts";
import { AnswerBudget } from "./answer-budget.ts";

const refused = (pattern: RegExp) => (e: unknown) =>
  e instanceof HttpError && e.status === 429 && e.retryable && pattern.test(e.message);

test("one client holds at most its bound; another client's answers still go", () => {
  const b = new AnswerBudget({ maxBytes: 1000, clientMaxBytes: 100 });
  const first = b.hold("a", 60);
  b.hold("a", 40);
  assert.throws(
    () => b.hold("a", 1),
    refused(/this client has 100 bytes .*--unsent-answers-client-mb/),
  );
  b.hold("b", 100);
  first();
  b.hold("a", 60);
  assert.equal(b.held, 200);
  assert.equal(b.clients, 2);
});

test("the gateway holds at most its bound, whichever clients hold it", () => {
  const b = new AnswerBudget({ maxBytes: 100, clientMaxBytes: 100 });
  const a = b.hold("a", 70);
  assert.throws(() => b.hold("b", 31), refused(/the gateway holds 70 bytes .*--unsent-answers-mb/));
  b.hold("b", 30);
  a();
  b.hold("c", 70);
  assert.equal(b.held, 100);
});

test("an answer alone always goes, even one larger than both bounds", () => {
  const b = new AnswerBudget({ maxBytes: 10, clientMaxBytes: 10 });
  const release = b.hold("a", 1000);
  assert.equal(b.held, 1000);
  assert.throws(() => b.hold("b", 1), refused(/the gateway holds 1000 bytes/));
  release();
  assert.equal(b.held, 0);
  assert.equal(b.clients, 0);
});

test("a release counts once", () => {
  const b = new AnswerBudget({ maxBytes: 100, clientMaxBytes: 100 });
  const release = b.hold("a", 40);
  b.hold("a", 10);
  release();
  release();
  assert.equal(b.held, 10);
  assert.equal(b.clients, 1);
});

test("property: held is what is held; a client past its bound, or the gateway past its own, held something else already", () => {
  const op = fc.oneof(
    fc.record({ hold: fc.constantFrom("a", "b", "c"), bytes: fc.integer({ min: 0, max: 80 }) }),
    fc.record({ release: fc.nat() }),
  );
  fc.assert(
    fc.property(
      fc.integer({ min: 1, max: 200 }),
      fc.integer({ min: 1, max: 100 }),
      fc.array(op),
      (max, clientMax, ops) => {
        const b = new AnswerBudget({ maxBytes: max, clientMaxBytes: clientMax });
        const live: { client: string; bytes: number; release: () => void }[] = [];
        for (const o of ops) {
          if ("release" in o) {
            if (live.length === 0) continue;
            live.splice(o.release % live.length, 1)[0]?.release();
          } else {
            const own = live.filter((l) => l.client === o.hold).reduce((s, l) => s + l.bytes, 0);
            const all = live.reduce((s, l) => s + l.bytes, 0);
            const fits =
              (own === 0 || own + o.bytes <= clientMax) && (all === 0 || all + o.bytes <= max);
            try {
              live.push({ client: o.hold, bytes: o.bytes, release: b.hold(o.hold, o.bytes) });
              assert.ok(fits, "held past a bound");
            } catch (e) {
              assert.ok(!fits && e instanceof HttpError && e.status === 429, String(e));
            }
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
