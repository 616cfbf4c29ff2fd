import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import { type BudgetedWindow, RingBudget } from "./ring-budget.ts";

/** A window of batches (their sizes, oldest first) that keeps its newest, as a hub's ring does. */
class Window implements BudgetedWindow {
  readonly batches: number[] = [];
  readonly #budget: RingBudget;
  constructor(budget: RingBudget) {
    this.#budget = budget;
    budget.join(this);
  }
  get bytes(): number {
    return this.batches.reduce((a, b) => a + b, 0);
  }
  shrunk = 0;
  push(bytes: number): void {
    this.batches.push(bytes);
    this.#budget.changed(bytes, this);
  }
  shrinkTo(bytes: number): void {
    this.shrunk++;
    while (this.batches.length > 1 && this.bytes > bytes) {
      this.#budget.changed(-(this.batches.shift() as number), this);
    }
  }
}

test("within the bound nothing is dropped; past it, windows over their share drop their oldest", () => {
  const budget = new RingBudget(100);
  const busy = new Window(budget);
  const quiet = new Window(budget);
  for (let i = 0; i < 9; i++) busy.push(10);
  quiet.push(5);
  assert.equal(budget.held, 95);
  busy.push(10);
  // 105 > 100: each window's share is 45; the quiet one is under it and keeps all it has.
  assert.deepEqual(busy.batches, [10, 10, 10, 10]);
  assert.deepEqual(quiet.batches, [5]);
  assert.equal(budget.held, 45);
});

test("a window keeps its newest batch, whatever its size", () => {
  const budget = new RingBudget(10);
  const w = new Window(budget);
  w.push(4);
  w.push(50);
  assert.deepEqual(w.batches, [50]);
  assert.equal(budget.held, 50);
});

test("a window that leaves takes what it held out of the sum", () => {
  const budget = new RingBudget(100);
  const a = new Window(budget);
  const b = new Window(budget);
  a.push(30);
  b.push(20);
  budget.leave(a);
  budget.leave(a);
  assert.equal(budget.held, 20);
  b.push(85);
  // Only b is left: its share is 90.
  assert.deepEqual(b.batches, [85]);
});

test("while the newest batches alone pass the bound, a batch shrinks its own window only", () => {
  const budget = new RingBudget(100);
  const windows = Array.from({ length: 50 }, () => new Window(budget));
  for (const w of windows) w.push(3);
  // 150 held, all of it newest batches: one sweep, then each push visits its own window.
  const swept = windows.reduce((s, w) => s + w.shrunk, 0);
  for (let i = 0; i < 100; i++) windows[i % 50]?.push(3);
  const after = windows.reduce((s, w) => s + w.shrunk, 0);
  assert.equal(after - swept, 100);
  assert.ok(
    windows.every((w) => w.batches.length === 1),
    "each kept its newest only",
  );
});

test("property: the sum is what the windows hold, and past a shrink within the bound but for newest batches", () => {
  const op = fc.oneof(
    fc.record({ push: fc.nat(4), bytes: fc.integer({ min: 1, max: 60 }) }),
    fc.record({ leave: fc.nat(4) }),
  );
  fc.assert(
    fc.property(fc.integer({ min: 1, max: 300 }), fc.array(op, { maxLength: 200 }), (max, ops) => {
      const budget = new RingBudget(max);
      const windows: (Window | undefined)[] = [];
      for (const o of ops) {
        if ("push" in o) {
          windows[o.push] ??= new Window(budget);
          windows[o.push]?.push(o.bytes);
        } else {
          const w = windows[o.leave];
          if (w) budget.leave(w);
          windows[o.leave] = undefined;
        }
        const live = windows.filter((w): w is Window => w !== undefined);
        assert.equal(
          budget.held,
          live.reduce((s, w) => s + w.bytes, 0),
        );
        const newest = live.reduce((s, w) => s + (w.batches.at(-1) ?? 0), 0);
        assert.ok(budget.held <= max + newest, `${budget.held} > ${max} + ${newest}`);
      }
    }),
  );
});
