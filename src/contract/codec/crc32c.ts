// CRC-32C (Castagnoli), reflected polynomial 0x82F63B78. `crc32c` is @node-rs/crc32's SSE4.2
// instruction path (several times the portable code's speed; `npm run bench:codec`,
// docs/catchup.md) where its prebuilt addon loads, else the portable slicing-by-8 below: eight
// table lookups per eight input bytes instead of one lookup per byte. Both answer the same for
// every input (tests).
import { createRequire } from "node:module";

const POLY = 0x82f63b78;

// Table t (entries t*256 .. t*256+255) is the CRC of a byte followed by t zero bytes; one flat
// array so the hot loop indexes a single typed array. Int32, not Uint32: values above 2^31
// would leave V8's int32 registers and run about half as fast.
const T = new Int32Array(8 * 256);
for (let n = 0; n < 256; n++) {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ POLY : c >>> 1;
  T[n] = c;
}
for (let n = 256; n < 8 * 256; n++) {
  const p = T[n - 256] as number;
  T[n] = (p >>> 8) ^ (T[p & 0xff] as number);
}

type Crc32c = (data: Uint8Array, crc?: number) => number;

/** CRC-32C of `data`, continuing from `crc` (the CRC of the bytes before it, 0 to start). */
export function crc32cPortable(data: Uint8Array, crc = 0): number {
  let c = ~crc;
  let i = 0;
  const end8 = data.length - (data.length % 8);
  const v = new DataView(data.buffer, data.byteOffset, data.byteLength);
  // Indexes stay in bounds by construction; `as number` only satisfies noUncheckedIndexedAccess.
  while (i < end8) {
    const lo = c ^ v.getInt32(i, true);
    const hi = v.getInt32(i + 4, true);
    c =
      (T[1792 + (lo & 0xff)] as number) ^
      (T[1536 + ((lo >>> 8) & 0xff)] as number) ^
      (T[1280 + ((lo >>> 16) & 0xff)] as number) ^
      (T[1024 + (lo >>> 24)] as number) ^
      (T[768 + (hi & 0xff)] as number) ^
      (T[512 + ((hi >>> 8) & 0xff)] as number) ^
      (T[256 + ((hi >>> 16) & 0xff)] as number) ^
      (T[hi >>> 24] as number);
    i += 8;
  }
  while (i < data.length) {
    c = (T[(c ^ (data[i] as number)) & 0xff] as number) ^ (c >>> 8);
    i++;
  }
  return ~c >>> 0;
}

/** The addon's crc32c, or undefined where no prebuilt binary exists for this platform. */
function nativeCrc32c(): Crc32c | undefined {
  try {
    const addon = createRequire(import.meta.url)("@node-rs/crc32") as {
      crc32c(input: Uint8Array, initialState?: number): number;
    };
    return (data, crc = 0) => addon.crc32c(data, crc);
  } catch {
    return undefined;
  }
}

export const crc32cNative: Crc32c | undefined = nativeCrc32c();

/** CRC-32C of `data`, continuing from `crc` (the CRC of the bytes before it, 0 to start). */
export const crc32c: Crc32c = crc32cNative ?? crc32cPortable;
