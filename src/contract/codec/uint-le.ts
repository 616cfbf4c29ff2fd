// Unsigned little-endian integers of 1 to 4 bytes: the variable-width lengths of a stored
// record's header table. Callers check bounds; these only move bytes.

/** Smallest width (1..4 bytes) that holds `n`; RangeError at 2^32 and above. */
export function widthFor(n: number): number {
  if (n < 0x100) return 1;
  if (n < 0x10000) return 2;
  if (n < 0x1000000) return 3;
  if (n < 0x100000000) return 4;
  throw new RangeError(`length ${n} does not fit in 4 bytes`);
}

/** Writes `n` in `width` bytes at `offset`. */
export function writeUintLE(out: Uint8Array, offset: number, width: number, n: number): void {
  let v = n;
  for (let i = 0; i < width; i++) {
    out[offset + i] = v & 0xff;
    v >>>= 8;
  }
}

/** Reads a `width`-byte value at `offset`. */
export function readUintLE(bytes: Uint8Array, offset: number, width: number): number {
  let v = 0;
  // Multiplying, not shifting, so a 4-byte value above 2^31 stays positive.
  for (let i = width - 1; i >= 0; i--) v = v * 256 + (bytes[offset + i] as number);
  return v;
}
