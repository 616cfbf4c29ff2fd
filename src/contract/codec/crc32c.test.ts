import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import { crc32c as chosen, crc32cNative, crc32cPortable } from "./crc32c.ts";

/** Bit at a time, straight from the definition: the oracle for the sliced tables. */
function reference(data: Uint8Array): number {
  let c = 0xffffffff;
  for (const byte of data) {
    c ^= byte;
    for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ 0x82f63b78 : c >>> 1;
  }
  return ~c >>> 0;
}

test("the addon loads on this platform (linux x64 CI), and crc32c is it", () => {
  assert.ok(crc32cNative, "@node-rs/crc32 did not load");
  assert.equal(chosen, crc32cNative);
});

const implementations: [string, (data: Uint8Array, crc?: number) => number][] = [
  ["portable", crc32cPortable],
  ...(crc32cNative ? [["native", crc32cNative] as [string, typeof crc32cPortable]] : []),
];

for (const [name, crc32c] of implementations) {
  test(`${name}: check value of 123456789 is 0xE3069283`, () => {
    assert.equal(crc32c(Buffer.from("123456789")), 0xe3069283);
  });

  test(`${name}: RFC 3720 B.4 vectors`, () => {
    assert.equal(crc32c(new Uint8Array(32)), 0x8a9136aa);
    assert.equal(crc32c(new Uint8Array(32).fill(0xff)), 0x62a8ab43);
    assert.equal(crc32c(Uint8Array.from({ length: 32 }, (_, i) => i)), 0x46dd794e);
    assert.equal(crc32c(Uint8Array.from({ length: 32 }, (_, i) => 31 - i)), 0x113fdb5c);
  });

  test(`${name}: empty input is 0 and leaves a running crc unchanged`, () => {
    assert.equal(crc32c(new Uint8Array(0)), 0);
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 0xffffffff }), (crc) => {
        assert.equal(crc32c(new Uint8Array(0), crc), crc);
      }),
    );
  });

  test(`${name}: matches the bitwise definition at every length and alignment`, () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 100 }), fc.nat(7), (data, skip) => {
        const view = data.subarray(Math.min(skip, data.length));
        assert.equal(crc32c(view), reference(view));
      }),
    );
  });

  test(`${name}: incremental: crc32c(b, crc32c(a)) === crc32c(a ++ b)`, () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), fc.uint8Array({ maxLength: 64 }), (a, b) => {
        assert.equal(crc32c(b, crc32c(a)), crc32c(Buffer.concat([a, b])));
      }),
    );
  });
}

test("native and portable agree on any bytes and any running crc", () => {
  const native = crc32cNative;
  assert.ok(native);
  fc.assert(
    fc.property(
      fc.uint8Array({ maxLength: 5000 }),
      fc.integer({ min: 0, max: 0xffffffff }),
      (data, crc) => {
        assert.equal(native(data, crc), crc32cPortable(data, crc));
      },
    ),
  );
});
