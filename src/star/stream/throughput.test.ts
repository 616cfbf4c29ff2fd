// The throughput rule: examples of the bucket (burst, debt, refusal, a batch above a second's
// budget, a rate change), and properties over random arrivals: the bytes released in any window,
// release order, the wait bound, rate 0, and refusals that change nothing.
import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import {
  type Admission,
  admitBatch,
  admitFence,
  INITIAL_THROUGHPUT,
  type ThroughputState,
} from "./throughput.ts";

type Admitted = Extract<Admission, { admitted: true }>;

function admitted(a: Admission): Admitted {
  assert.equal(a.admitted, true, "admitted");
  return a as Admitted;
}

/** Float slack: the rule computes in doubles. */
const EPS = 1e-6;

test("a burst within a second's budget goes through at once; then batches wait for tokens", () => {
  const ask = { rate: 1000, bytes: 400, maxWaitMs: 2000 };
  let s = INITIAL_THROUGHPUT;
  const delays: number[] = [];
  for (let i = 0; i < 4; i++) {
    const a = admitted(admitBatch(s, { ...ask, nowMs: 10_000 }));
    delays.push(a.delayMs);
    s = a.state;
  }
  // 1000 tokens: 400, 400, then 200 short (200 ms), then 600 short (600 ms).
  assert.deepEqual(
    delays.map((d) => Math.round(d)),
    [0, 0, 200, 600],
  );
  assert.equal(s.level, -600);
});

test("a batch that would wait past the bound is refused with the time to retry after", () => {
  let s = INITIAL_THROUGHPUT;
  const ask = { rate: 1000, bytes: 1000, maxWaitMs: 500 };
  s = admitted(admitBatch(s, { ...ask, nowMs: 0 })).state;
  // Empty: 1000 tokens needed, 1000 ms away, 500 past the bound.
  const refused = admitBatch(s, { ...ask, nowMs: 0 });
  assert.deepEqual(refused, { admitted: false, retryAfterMs: 500 });
  // Retried then, it is admitted within the bound.
  const later = admitted(admitBatch(s, { ...ask, nowMs: 500 }));
  assert.equal(later.delayMs, 500);
  // Nearly due: the retry hint is at least 1 ms.
  const close = admitBatch(s, { ...ask, maxWaitMs: 999.9, nowMs: 0 });
  assert.deepEqual(close, { admitted: false, retryAfterMs: 1 });
});

test("a batch above a second's budget goes through on a full bucket, and its debt is waited for", () => {
  let s = INITIAL_THROUGHPUT;
  const big = admitted(admitBatch(s, { rate: 100, bytes: 250, nowMs: 0, maxWaitMs: 2000 }));
  assert.equal(big.delayMs, 0);
  s = big.state;
  assert.equal(s.level, -150);
  // A 1-byte batch waits until the debt is paid and one token is back: 1510 ms.
  const small = admitted(admitBatch(s, { rate: 100, bytes: 1, nowMs: 0, maxWaitMs: 2000 }));
  assert.equal(Math.round(small.delayMs), 1510);
  // The same big batch on a bucket that is not full waits until it is, here past the bound.
  const again = admitBatch(s, { rate: 100, bytes: 250, nowMs: 0, maxWaitMs: 2000 });
  assert.deepEqual(again, { admitted: false, retryAfterMs: 500 });
});

test("a fence costs nothing but waits for what was admitted before it", () => {
  let s = INITIAL_THROUGHPUT;
  s = admitted(admitBatch(s, { rate: 100, bytes: 100, nowMs: 0, maxWaitMs: 5000 })).state;
  const held = admitted(admitBatch(s, { rate: 100, bytes: 50, nowMs: 0, maxWaitMs: 5000 }));
  s = held.state;
  const fence = admitFence(s, 10);
  assert.equal(fence.releaseMs, held.releaseMs);
  assert.equal(fence.state.level, s.level);
  // Nothing held: a fence goes at once.
  assert.equal(admitFence(INITIAL_THROUGHPUT, 10).delayMs, 0);
});

test("a rate change fills the bucket at the new rate, behind what is already held", () => {
  let s = INITIAL_THROUGHPUT;
  s = admitted(admitBatch(s, { rate: 100, bytes: 100, nowMs: 0, maxWaitMs: 5000 })).state;
  const held = admitted(admitBatch(s, { rate: 100, bytes: 100, nowMs: 0, maxWaitMs: 5000 }));
  assert.equal(held.delayMs, 1000);
  s = held.state;
  const faster = admitted(admitBatch(s, { rate: 10_000, bytes: 5000, nowMs: 10, maxWaitMs: 5000 }));
  assert.equal(faster.state.level, 5000);
  assert.equal(faster.releaseMs, held.releaseMs, "not before the batch held ahead of it");
  const unlimited = admitted(
    admitBatch(faster.state, { rate: 0, bytes: 1e9, nowMs: 2000, maxWaitMs: 0 }),
  );
  assert.equal(unlimited.delayMs, 0);
});

// ---- properties ----

interface Step {
  gapMs: number;
  kind: "batch" | "fence";
  bytes: number;
}

const stepArb = (maxBytes: number, fences: boolean, maxGapMs = 3000): fc.Arbitrary<Step> =>
  fc.record({
    gapMs: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: maxGapMs })),
    kind: fences
      ? fc.constantFrom<Step["kind"]>("batch", "batch", "batch", "fence")
      : fc.constant<Step["kind"]>("batch"),
    bytes: fc.integer({ min: 0, max: maxBytes }),
  });

interface Outcome {
  arrivalMs: number;
  step: Step;
  admission: Admission;
}

/** Runs the steps at one rate (or one per step) from the initial state. */
function run(steps: Step[], rates: (i: number) => number, maxWaitMs: number): Outcome[] {
  let s: ThroughputState = INITIAL_THROUGHPUT;
  let now = 1_000_000;
  const out: Outcome[] = [];
  steps.forEach((step, i) => {
    now += step.gapMs;
    const admission =
      step.kind === "fence"
        ? admitFence(s, now)
        : admitBatch(s, { rate: rates(i), bytes: step.bytes, nowMs: now, maxWaitMs });
    if (admission.admitted) s = admission.state;
    out.push({ arrivalMs: now, step, admission });
  });
  return out;
}

const rateArb = fc.integer({ min: 1, max: 100_000 });
const maxWaitArb = fc.integer({ min: 0, max: 5000 });

test("property: in any window the released bytes stay within C + rate x window + the largest batch", () => {
  fc.assert(
    fc.property(
      rateArb,
      maxWaitArb,
      fc.array(stepArb(300_000, false), { minLength: 1, maxLength: 60 }),
      (rate, maxWaitMs, steps) => {
        const released = run(steps, () => rate, maxWaitMs).flatMap((o) =>
          o.admission.admitted ? [{ at: o.admission.releaseMs, bytes: o.step.bytes }] : [],
        );
        const largest = Math.max(0, ...released.map((r) => r.bytes));
        // Release times are in order, so every window's batches are a run between two of them.
        for (let i = 0; i < released.length; i++) {
          let sum = 0;
          for (let j = i; j < released.length; j++) {
            sum += (released[j] as { bytes: number }).bytes;
            const windowMs =
              (released[j] as { at: number }).at - (released[i] as { at: number }).at;
            const bound = rate + (rate * windowMs) / 1000 + largest;
            assert.ok(sum <= bound * (1 + EPS) + EPS, `${sum} bytes in ${windowMs} ms > ${bound}`);
          }
        }
      },
    ),
  );
});

test("property: release times never go back in arrival order, across fences and rate changes", () => {
  fc.assert(
    fc.property(
      fc.array(fc.integer({ min: 0, max: 5000 }), { minLength: 1, maxLength: 5 }),
      maxWaitArb,
      fc.array(stepArb(10_000, true, 300), { minLength: 1, maxLength: 60 }),
      (rates, maxWaitMs, steps) => {
        let last = Number.NEGATIVE_INFINITY;
        for (const o of run(steps, (i) => rates[i % rates.length] as number, maxWaitMs)) {
          if (!o.admission.admitted) continue;
          assert.ok(o.admission.releaseMs >= last, "released before an earlier arrival");
          assert.ok(o.admission.releaseMs >= o.arrivalMs);
          last = o.admission.releaseMs;
        }
      },
    ),
  );
});

test("property: no admitted batch or fence waits longer than the bound", () => {
  fc.assert(
    fc.property(
      fc.array(fc.integer({ min: 0, max: 50_000 }), { minLength: 1, maxLength: 5 }),
      maxWaitArb,
      fc.array(stepArb(100_000, true), { minLength: 1, maxLength: 60 }),
      (rates, maxWaitMs, steps) => {
        for (const o of run(steps, (i) => rates[i % rates.length] as number, maxWaitMs)) {
          if (o.admission.admitted) assert.ok(o.admission.delayMs <= maxWaitMs * (1 + EPS) + EPS);
        }
      },
    ),
  );
});

test("property: at rate 0 nothing waits and nothing is refused", () => {
  fc.assert(
    fc.property(fc.array(stepArb(1 << 30, true), { maxLength: 60 }), maxWaitArb, (steps, max) => {
      for (const o of run(steps, () => 0, max)) {
        assert.equal(o.admission.admitted, true);
        assert.equal((o.admission as Admitted).delayMs, 0);
      }
    }),
  );
});

test("property: a refusal changes nothing: without the refused batches the rest is the same", () => {
  fc.assert(
    fc.property(
      rateArb,
      maxWaitArb,
      fc.array(stepArb(200_000, true), { minLength: 1, maxLength: 60 }),
      (rate, maxWaitMs, steps) => {
        const all = run(steps, () => rate, maxWaitMs);
        // The refused steps dropped, their gaps kept, so every other step arrives when it did.
        const kept: Step[] = [];
        let carried = 0;
        for (const o of all) {
          if (o.admission.admitted) {
            kept.push({ ...o.step, gapMs: o.step.gapMs + carried });
            carried = 0;
          } else carried += o.step.gapMs;
        }
        const again = run(kept, () => rate, maxWaitMs);
        assert.deepEqual(
          again.map((o) => o.admission),
          all.filter((o) => o.admission.admitted).map((o) => o.admission),
        );
      },
    ),
  );
});

test("property: a refused batch retried after retryAfterMs, nothing else admitted, goes through", () => {
  fc.assert(
    fc.property(
      rateArb,
      maxWaitArb,
      fc.array(stepArb(200_000, false), { minLength: 1, maxLength: 30 }),
      (rate, maxWaitMs, steps) => {
        let s: ThroughputState = INITIAL_THROUGHPUT;
        let now = 0;
        for (const step of steps) {
          now += step.gapMs;
          const ask = { rate, bytes: step.bytes, maxWaitMs };
          const a = admitBatch(s, { ...ask, nowMs: now });
          if (a.admitted) {
            s = a.state;
            continue;
          }
          assert.ok(a.retryAfterMs >= 1);
          assert.equal(admitBatch(s, { ...ask, nowMs: now + a.retryAfterMs }).admitted, true);
        }
      },
    ),
  );
});
