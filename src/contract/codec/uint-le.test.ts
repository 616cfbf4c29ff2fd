import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import { readUintLE, widthFor, writeUintLE } from "./uint-le.ts";

test("widthFor picks the smallest width at every boundary", () => {
  const cases: [number, number][] = [
    [0, 1],
    [255, 1],
    [256, 2],
    [65535, 2],
    [65536, 3],
    [2 ** 24 - 1, 3],
    [2 ** 24, 4],
    [2 ** 32 - 1, 4],
  ];
  for (const [n, width] of cases) assert.equal(widthFor(n), width, `widthFor(${n})`);
  assert.throws(() => widthFor(2 ** 32), RangeError);
});

test("writeUintLE then readUintLE returns the value, little-endian, touching only its bytes", () => {
  fc.assert(
    fc.property(fc.integer({ min: 0, max: 2 ** 32 - 1 }), fc.nat(3), (n, pad) => {
      const width = widthFor(n);
      const out = new Uint8Array(pad + width + 1).fill(0xaa);
      writeUintLE(out, pad, width, n);
      assert.equal(readUintLE(out, pad, width), n);
      assert.equal(out[pad + width], 0xaa);
      if (pad > 0) assert.equal(out[pad - 1], 0xaa);
      assert.equal(out[pad], n & 0xff);
    }),
  );
  const out = new Uint8Array(4);
  writeUintLE(out, 0, 4, 0xfedcba98);
  assert.deepEqual([...out], [0x98, 0xba, 0xdc, 0xfe]);
  assert.equal(readUintLE(out, 0, 4), 0xfedcba98);
});
