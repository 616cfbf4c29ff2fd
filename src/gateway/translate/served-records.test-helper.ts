// Test support: fast-check arbitraries for records as a star serves them (any bytes, any uint64
// seq_num and timestamp), shared by the property tests of the SSE framing.
import fc from "fast-check";
import type { Record__Output } from "../../gen/nova/v1/Record.ts";

export const servedBytes = fc.oneof(
  fc.uint8Array({ maxLength: 24 }).map((b) => Buffer.from(b)),
  fc.string({ unit: "binary", maxLength: 24 }).map((t) => Buffer.from(t, "utf8")),
);

export const uint64Decimal = fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }).map(String);

export const servedRecord: fc.Arbitrary<Record__Output> = fc.record(
  {
    seq_num: uint64Decimal,
    timestamp_ms: uint64Decimal,
    body: servedBytes,
    headers: fc.array(fc.record({ name: servedBytes, value: servedBytes }), { maxLength: 2 }),
  },
  { noNullPrototype: true },
);
