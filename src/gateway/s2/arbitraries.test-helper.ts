// fast-check generators for S2's messages, shaped as the codecs decode them.
import fc from "fast-check";
import type { S2AppendRecord } from "./records.ts";

export const uint64 = fc.bigInt({ min: 0n, max: (1n << 64n) - 1n }).map(String);
export const int64Time = fc.bigInt({ min: 0n, max: (1n << 63n) - 1n }).map(String);
const bytes = (maxLength: number) => fc.uint8Array({ maxLength }).map((b) => Buffer.from(b));
// Plain objects: fc.record's have a null prototype, which deepStrictEqual tells apart.
const plain = <T extends object>(r: T): T => ({ ...r });
export const header = fc
  .record({ name: bytes(8).filter((b) => b.length > 0), value: bytes(8) })
  .map(plain);
export const position = fc.record({ seq_num: uint64, timestamp: int64Time }).map(plain);

export const appendRecord = fc
  .record({
    timestamp: fc.option(int64Time, { nil: undefined }),
    headers: fc.array(header, { maxLength: 3 }),
    body: bytes(40),
  })
  .map(
    (r): S2AppendRecord =>
      r.timestamp === undefined ? { headers: r.headers, body: r.body } : plain(r),
  );

export const sequencedRecord = fc
  .record({
    seq_num: uint64,
    timestamp: int64Time,
    headers: fc.array(header, { maxLength: 3 }),
    body: bytes(40),
  })
  .map(plain);
