import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import { needsJsonEscape, needsJsonEscapePortable, needsJsonEscapeSimd } from "./json-escape.ts";

const reference = (bytes: Uint8Array) => bytes.some((c) => c < 0x20 || c === 0x22 || c === 0x5c);

test("the WebAssembly check loads here (Node on x86-64 has SIMD) and is the one in use", () => {
  assert.ok(needsJsonEscapeSimd);
  assert.equal(needsJsonEscape, needsJsonEscapeSimd);
});

const simd = needsJsonEscapeSimd ?? needsJsonEscapePortable;
const checks = [
  ["portable", needsJsonEscapePortable],
  ["simd", simd],
] as const;

for (const [name, check] of checks) {
  test(`${name}: a quote, a backslash or a control character anywhere, at any alignment`, () => {
    const byte = fc.oneof(
      fc.integer({ min: 0, max: 255 }),
      fc.constantFrom(0x22, 0x5c, 0x1f, 0x20, 0x00, 0x7f, 0x80, 0xff),
    );
    fc.assert(
      fc.property(fc.nat(15), fc.array(byte, { maxLength: 80 }), (at, list) => {
        const bytes = Buffer.concat([Buffer.alloc(at), Buffer.from(list)]).subarray(at);
        assert.equal(check(bytes), reference(bytes));
      }),
      { numRuns: 3000 },
    );
    // Every byte value in every lane of a 16-byte step, and in the bytes after the last step.
    for (let c = 0; c < 256; c++) {
      for (let lane = 0; lane < 19; lane++) {
        const bytes = new Uint8Array(19).fill(0x61);
        bytes[lane] = c;
        assert.equal(check(bytes), c < 0x20 || c === 0x22 || c === 0x5c, `${c}@${lane}`);
      }
    }
  });

  test(`${name}: inputs longer than the module's 64 KiB page, with the byte in any window`, () => {
    const size = 3 * 65536 + 21;
    const clean = Buffer.alloc(size, 0x61);
    assert.equal(check(clean), false);
    for (const at of [0, 65535, 65536, 65537, 2 * 65536 + 7, size - 1]) {
      const bytes = Buffer.from(clean);
      bytes[at] = 0x22;
      assert.equal(check(bytes), true, `quote at ${at}`);
    }
  });
}

test("the two checks agree on any bytes, including what an earlier call left in the page", () => {
  fc.assert(
    fc.property(fc.array(fc.uint8Array({ maxLength: 200 }), { maxLength: 5 }), (inputs) => {
      for (const bytes of inputs) assert.equal(simd(bytes), needsJsonEscapePortable(bytes));
    }),
    { numRuns: 2000 },
  );
});
