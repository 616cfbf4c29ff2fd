import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import { appendRecord, position, sequencedRecord, uint64 } from "./arbitraries.test-helper.ts";
import { s2Wire, wantsProtoReply } from "./wire.ts";

test("AppendInput: decode after encode gives the message back, optional fields included", () => {
  fc.assert(
    fc.property(
      fc.array(appendRecord, { maxLength: 5 }),
      fc.option(uint64, { nil: undefined }),
      fc.option(fc.string({ maxLength: 10 }), { nil: undefined }),
      (records, match, token) => {
        const input = {
          records,
          ...(match === undefined ? {} : { match_seq_num: match }),
          ...(token === undefined ? {} : { fencing_token: token }),
        };
        const back = s2Wire.AppendInput.decode(s2Wire.AppendInput.encode(input));
        assert.equal(back.match_seq_num, match);
        assert.equal(back.fencing_token, token);
        assert.equal(back.records.length, records.length);
        back.records.forEach((r, i) => {
          const sent = records[i] as (typeof records)[number];
          assert.equal(r.timestamp, sent.timestamp);
          assert.deepEqual(r.body, sent.body);
          assert.deepEqual(r.headers, sent.headers);
        });
      },
    ),
  );
});

test("AppendAck: decode after encode is the identity", () => {
  fc.assert(
    fc.property(position, position, position, (start, end, tail) => {
      const ack = { start, end, tail };
      assert.deepEqual(s2Wire.AppendAck.decode(s2Wire.AppendAck.encode(ack)), ack);
    }),
  );
});

test("ReadBatch: decode after encode is the identity, with and without a tail", () => {
  fc.assert(
    fc.property(
      fc.array(sequencedRecord, { maxLength: 5 }),
      fc.option(position, { nil: undefined }),
      (records, tail) => {
        const batch = tail === undefined ? { records } : { records, tail };
        const back = s2Wire.ReadBatch.decode(s2Wire.ReadBatch.encode(batch));
        assert.deepEqual(back.records, records);
        assert.deepEqual(back.tail, tail);
      },
    ),
  );
});

test("bytes that are not the message are S2's 400 bad_proto", () => {
  assert.throws(
    () => s2Wire.AppendInput.decode(Buffer.from([0x0a, 0xff, 0xff, 0xff])),
    (err: { status: number; code: string }) => err.status === 400 && err.code === "bad_proto",
  );
});

test("a reply is protobuf when the first type Accept names is S2's protobuf", () => {
  for (const [accept, proto] of [
    ["application/protobuf", true],
    ["Application/X-Protobuf; q=1", true],
    [" application/protobuf , application/json", true],
    ["application/json, application/protobuf", false],
    ["*/*", false],
    ["", false],
    [undefined, false],
  ] as const) {
    assert.equal(wantsProtoReply(accept), proto, String(accept));
  }
});
