import assert from "node:assert/strict";
import { test } from "node:test";
import type * as grpc from "@grpc/grpc-js";
import fc from "fast-check";
import { nova, protoRoot } from "../../contract/proto/index.ts";
import { MAX_BATCH_RECORDS, MAX_HEADERS_PER_RECORD } from "../../contract/wire-limits.ts";
import { StarError } from "../errors.ts";
import { guardAppends, refuseOverCap } from "./append-guard.ts";

const plain = nova.DataPlaneService.service;
const guarded = guardAppends(plain);
type Def = grpc.MethodDefinition<unknown, unknown>;
const append = { plain: plain.Append as Def, guarded: guarded.Append as Def };
const session = { plain: plain.AppendSession as Def, guarded: guarded.AppendSession as Def };

const empty = () => ({ body: Buffer.alloc(0), headers: [] });
const header = { name: Buffer.from("h"), value: Buffer.from("v") };

/** The refusal `refuseOverCap` throws for a decoded request, or undefined. */
function refusal(request: unknown): string | undefined {
  try {
    refuseOverCap(request as object);
    return undefined;
  } catch (err) {
    assert.ok(err instanceof StarError, String(err));
    assert.equal(err.code, 3, "INVALID_ARGUMENT");
    return err.message;
  }
}

const bytes = fc.uint8Array({ maxLength: 16 }).map((b) => Buffer.from(b));
const appendRecord = fc.record(
  {
    body: bytes,
    headers: fc.array(fc.record({ name: bytes, value: bytes }), { maxLength: 4 }),
    timestamp_ms: fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }).map(String),
  },
  { requiredKeys: ["body", "headers"] },
);

test("property: under the caps, a guarded decode is the plain one", () => {
  const request = fc.record(
    {
      bucket: fc.string(),
      key: fc.string(),
      records: fc.array(appendRecord, { maxLength: 8 }),
      match_seq_num: fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }).map(String),
      fencing_token: fc.string(),
      close: fc.boolean(),
      content_type: fc.string(),
    },
    { requiredKeys: ["records"] },
  );
  fc.assert(
    fc.property(request, (r) => {
      const wire = append.plain.requestSerialize(r);
      const got = append.guarded.requestDeserialize(wire);
      assert.deepEqual(got, append.plain.requestDeserialize(wire));
      assert.equal(refusal(got), undefined);
    }),
  );
  const frame = fc.oneof(
    fc.record({ open: fc.record({ bucket: fc.string(), key: fc.string() }) }),
    fc.record({ batch: fc.record({ records: fc.array(appendRecord, { maxLength: 8 }) }) }),
  );
  fc.assert(
    fc.property(frame, (f) => {
      const wire = session.plain.requestSerialize(f);
      assert.deepEqual(
        session.guarded.requestDeserialize(wire),
        session.plain.requestDeserialize(wire),
      );
    }),
  );
});

test("a batch of more records than the cap decodes to a refusal naming the cap", () => {
  const at = { bucket: "b", key: "s", records: Array.from({ length: MAX_BATCH_RECORDS }, empty) };
  const ok = append.guarded.requestDeserialize(append.plain.requestSerialize(at));
  assert.equal(refusal(ok), undefined);
  assert.equal((ok as { records: unknown[] }).records.length, MAX_BATCH_RECORDS);

  const over = { ...at, records: [...at.records, empty()] };
  const got = append.guarded.requestDeserialize(append.plain.requestSerialize(over));
  assert.match(
    refusal(got) ?? "",
    new RegExp(`at most ${MAX_BATCH_RECORDS} records; send more as several batches`),
  );
  assert.deepEqual((got as { records: unknown[] }).records, [], "nothing of it decoded");

  const frame = { batch: { records: over.records } };
  const inSession = session.guarded.requestDeserialize(session.plain.requestSerialize(frame));
  assert.match(refusal(inSession) ?? "", /at most 10000 records/);
});

test("a record with more headers than the cap is refused by its index", () => {
  const headers = (n: number) => Array.from({ length: n }, () => header);
  const records = [
    { body: Buffer.alloc(0), headers: headers(MAX_HEADERS_PER_RECORD) },
    { body: Buffer.alloc(0), headers: headers(MAX_HEADERS_PER_RECORD + 1) },
  ];
  const ok = append.guarded.requestDeserialize(
    append.plain.requestSerialize({ records: records.slice(0, 1) }),
  );
  assert.equal(refusal(ok), undefined);
  const got = append.guarded.requestDeserialize(append.plain.requestSerialize({ records }));
  assert.match(refusal(got) ?? "", /^record 1: at least 101 headers, at most 100 allowed$/);
});

test("records sent with another wire type are counted as the decoder makes them", () => {
  // Field 4 as a varint of 0: protobufjs reads a zero length and makes an empty record.
  const wire = Buffer.alloc(2 * (MAX_BATCH_RECORDS + 1));
  for (let i = 0; i < wire.length; i += 2) wire[i] = (4 << 3) | 0;
  assert.equal(
    (append.plain.requestDeserialize(wire.subarray(0, 4)) as { records: unknown[] }).records.length,
    2,
  );
  assert.match(refusal(append.guarded.requestDeserialize(wire)) ?? "", /at most 10000 records/);
});

test("a malformed request still fails to decode; other decodes are not counted", () => {
  assert.throws(() => append.guarded.requestDeserialize(Buffer.from([0x22, 0x05, 0x0a])));
  // Outside a guarded decode, the same types decode whatever they hold.
  const type = protoRoot().lookupType("nova.v1.AppendRequest");
  const many = { records: Array.from({ length: MAX_BATCH_RECORDS + 1 }, empty) };
  const decoded = type.decode(append.plain.requestSerialize(many)) as unknown as {
    records: unknown[];
  };
  assert.equal(decoded.records.length, MAX_BATCH_RECORDS + 1);
});
