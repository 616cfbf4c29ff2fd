import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import { HttpError } from "../errors/index.ts";
import {
  ANSWER_FLOOR_BYTES,
  AnswerBudget,
  PAGE_MEMORY_FACTOR,
  pageMemoryBytes,
} from "./answer-budget.ts";

const F = ANSWER_FLOOR_BYTES;
const refused = (pattern: RegExp) => (e: unknown) =>
  e instanceof HttpError && e.status === 429 && e.retryable && pattern.test(e.message);

/** A read whose answer of `bytes` is written at once; its release. */
function answer(b: AnswerBudget, client: string, bytes: number): () => void {
  const claim = b.claim(client);
  claim.set(bytes);
  return () => claim.release();
}

test("one client holds at most its bound; another client's answers still go", () => {
  const b = new AnswerBudget({ maxBytes: 1000 * F, clientMaxBytes: 100 * F });
  const first = answer(b, "a", 60 * F);
  answer(b, "a", 40 * F);
  assert.throws(
    () => answer(b, "a", 1),
    refused(/this client has \d+ bytes .*--unsent-answers-client-mb/),
  );
  assert.throws(() => b.admit("a"), refused(/--unsent-answers-client-mb/));
  answer(b, "b", 100 * F);
  first();
  b.admit("a");
  answer(b, "a", 60 * F);
  assert.equal(b.held, 200 * F);
  assert.equal(b.clients, 2);
});

test("the gateway's last eighth is for clients that hold nothing", () => {
  const b = new AnswerBudget({ maxBytes: 80 * F, clientMaxBytes: 80 * F });
  const a = answer(b, "a", 60 * F);
  // a holds something: it may fill the gateway only to 70 (80 less its eighth).
  assert.throws(
    () => answer(b, "a", 11 * F),
    refused(/the gateway holds \d+ bytes .*--unsent-answers-mb/),
  );
  answer(b, "a", 10 * F);
  assert.throws(() => b.admit("a"), refused(/--unsent-answers-mb/));
  // b holds nothing: the reserve is its.
  b.admit("b");
  answer(b, "b", 10 * F);
  assert.throws(() => answer(b, "c", 1), refused(/the gateway holds/));
  a();
  answer(b, "c", 60 * F);
  assert.equal(b.held, 80 * F);
});

test("an answer alone always goes, even one larger than both bounds", () => {
  const b = new AnswerBudget({ maxBytes: 10, clientMaxBytes: 10 });
  const release = answer(b, "a", 1000 * F);
  assert.equal(b.held, 1000 * F);
  assert.throws(() => answer(b, "b", 1), refused(/the gateway holds/));
  release();
  assert.equal(b.held, 0);
  assert.equal(b.clients, 0);
});

test("an answer counts at least the floor", () => {
  const b = new AnswerBudget({ maxBytes: 1000 * F, clientMaxBytes: 4 * F });
  for (let i = 0; i < 4; i++) answer(b, "a", 100);
  assert.equal(b.held, 4 * F);
  assert.throws(() => answer(b, "a", 1), refused(/--unsent-answers-client-mb/));
});

test("a release counts once", () => {
  const b = new AnswerBudget({ maxBytes: 100 * F, clientMaxBytes: 100 * F });
  const release = answer(b, "a", 40 * F);
  answer(b, "a", 10 * F);
  release();
  release();
  assert.equal(b.held, 10 * F);
  assert.equal(b.clients, 1);
});

test("a claim holds nothing until set; growing is checked beside what others hold, shrinking frees", () => {
  const b = new AnswerBudget({ maxBytes: 1000 * F, clientMaxBytes: 10 * F });
  const claim = b.claim("a");
  assert.equal(b.held, 0);
  assert.equal(b.clients, 0);
  // Alone, a claim grows past the client's bound, and is checked against it only beside others.
  claim.set(8 * F);
  claim.set(50 * F);
  assert.equal(b.held, 50 * F);
  const other = b.claim("a");
  assert.throws(() => other.set(1), refused(/--unsent-answers-client-mb/));
  assert.equal(b.held, 50 * F, "a refused claim counts nothing more");
  claim.set(2 * F);
  assert.equal(b.held, 2 * F);
  other.set(8 * F);
  assert.throws(() => claim.set(3 * F), refused(/--unsent-answers-client-mb/));
  assert.equal(b.held, 10 * F, "a refused growth keeps what was counted");
  claim.release();
  claim.set(5 * F);
  assert.equal(b.held, 8 * F, "a released claim counts no more");
});

test("a page in hand counts its records' content twice", () => {
  const body = Buffer.alloc(1000);
  const headers = [{ name: Buffer.from("ab"), value: Buffer.from("cde") }];
  assert.equal(pageMemoryBytes([]), 0);
  assert.equal(
    pageMemoryBytes([
      { body, headers },
      { body, headers: [] },
    ]),
    PAGE_MEMORY_FACTOR * 2005,
  );
});

test("property: held is what is held; a claim growing past a bound is refused unless alone; admit refuses what a floor-sized answer would be refused", () => {
  const op = fc.oneof(
    fc.record({ hold: fc.constantFrom("a", "b", "c"), bytes: fc.integer({ min: 0, max: 80 * F }) }),
    fc.record({ admit: fc.constantFrom("a", "b", "c") }),
    fc.record({ release: fc.nat() }),
    fc.record({ resize: fc.nat(), bytes: fc.integer({ min: 0, max: 80 * F }) }),
  );
  fc.assert(
    fc.property(
      fc.integer({ min: 1, max: 400 * F }),
      fc.integer({ min: 1, max: 100 * F }),
      fc.array(op),
      (max, clientMax, ops) => {
        const b = new AnswerBudget({ maxBytes: max, clientMaxBytes: clientMax });
        const reserve = Math.min(32 * 1024 * 1024, Math.floor(max / 8));
        type Live = { client: string; bytes: number; claim: ReturnType<AnswerBudget["claim"]> };
        const live: Live[] = [];
        const fits = (client: string, bytes: number, self?: Live) => {
          const others = live.filter((l) => l !== self);
          const own = others.filter((l) => l.client === client).reduce((s, l) => s + l.bytes, 0);
          const all = others.reduce((s, l) => s + l.bytes, 0);
          const limit = own > 0 ? max - reserve : max;
          return (own === 0 || own + bytes <= clientMax) && (all === 0 || all + bytes <= limit);
        };
        for (const o of ops) {
          if ("release" in o) {
            if (live.length === 0) continue;
            live.splice(o.release % live.length, 1)[0]?.claim.release();
            continue;
          }
          if ("resize" in o) {
            const l = live[o.resize % live.length];
            if (!l) continue;
            const target = Math.max(o.bytes, F);
            const expected = target <= l.bytes || fits(l.client, target, l);
            try {
              l.claim.set(o.bytes);
              assert.ok(expected, "grown past a bound");
              l.bytes = target;
            } catch (e) {
              assert.ok(!expected && e instanceof HttpError && e.status === 429, String(e));
            }
            continue;
          }
          const client = "hold" in o ? o.hold : o.admit;
          const counted = "hold" in o ? Math.max(o.bytes, F) : F;
          const expected = fits(client, counted);
          try {
            if ("hold" in o) {
              const claim = b.claim(client);
              claim.set(o.bytes);
              live.push({ client, bytes: counted, claim });
            } else b.admit(client);
            assert.ok(expected, "let past a bound");
          } catch (e) {
            assert.ok(!expected && e instanceof HttpError && e.status === 429, String(e));
          }
          assert.equal(
            b.held,
            live.reduce((s, l) => s + l.bytes, 0),
          );
        }
        for (const l of live) l.claim.release();
        assert.equal(b.held, 0);
        assert.equal(b.clients, 0);
      },
    ),
  );
});
