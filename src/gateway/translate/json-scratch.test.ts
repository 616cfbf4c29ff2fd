import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import { ScratchWriter, scratchBytes } from "./json-scratch.ts";

type Op =
  | { kind: "ascii"; s: string }
  | { kind: "text"; s: string }
  | { kind: "bytes"; b: Uint8Array }
  | { kind: "byte"; c: number };

const op: fc.Arbitrary<Op> = fc.oneof(
  fc
    .string({ unit: fc.integer({ min: 0, max: 0x7f }).map((c) => String.fromCharCode(c)) })
    .map((s) => ({ kind: "ascii" as const, s })),
  fc.string({ unit: "binary" }).map((s) => ({ kind: "text" as const, s })),
  fc.uint8Array({ maxLength: 3000 }).map((b) => ({ kind: "bytes" as const, b })),
  fc.integer({ min: 0, max: 255 }).map((c) => ({ kind: "byte" as const, c })),
);

const expected = (ops: Op[]) =>
  Buffer.concat(
    ops.map((o) => {
      if (o.kind === "ascii") return Buffer.from(o.s, "latin1");
      if (o.kind === "text") return Buffer.from(o.s, "utf8");
      if (o.kind === "bytes") return Buffer.from(o.b);
      return Buffer.from([o.c]);
    }),
  );

const write = (ops: Op[]) => {
  const w = new ScratchWriter();
  for (const o of ops) {
    if (o.kind === "ascii") w.ascii(o.s);
    else if (o.kind === "text") w.text(o.s);
    else if (o.kind === "bytes") w.bytes(o.b);
    else w.byte(o.c);
  }
  return w.finish();
};

test("what a writer writes is the concatenation of its pieces, byte for byte", () => {
  fc.assert(
    fc.property(fc.array(op, { maxLength: 30 }), (ops) => {
      const json = write(ops);
      const want = expected(ops);
      assert.equal(json.byteLength, want.length);
      assert.deepEqual(Buffer.from(scratchBytes(json)), want);
    }),
    { numRuns: 500 },
  );
});

test("the scratch grows for a big batch, keeping what was written, and is dropped after", () => {
  const piece = Buffer.alloc(700_000, 0x61);
  piece[0] = 0x62;
  const ops: Op[] = Array.from({ length: 14 }, (_, i) => ({
    kind: "bytes",
    b: Buffer.concat([Buffer.from([i]), piece]),
  }));
  const json = write(ops);
  assert.deepEqual(Buffer.from(scratchBytes(json)), expected(ops));
  // The next writer starts on a small scratch again and writes correctly.
  const small = write([{ kind: "ascii", s: "after" }]);
  assert.equal(Buffer.from(scratchBytes(small)).toString("latin1"), "after");
});

test("JSON read after a later writer started throws instead of showing other bytes", () => {
  const first = write([{ kind: "ascii", s: "first" }]);
  const second = write([{ kind: "ascii", s: "second" }]);
  assert.throws(() => scratchBytes(first), /later writer/);
  assert.equal(Buffer.from(scratchBytes(second)).toString("latin1"), "second");
});

test("a writer used after a later one started throws", () => {
  const early = new ScratchWriter();
  early.ascii("a");
  new ScratchWriter().ascii("b");
  assert.throws(() => early.ascii("c"), /later ScratchWriter/);
});
