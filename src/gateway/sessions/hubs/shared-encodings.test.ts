import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import {
  batchEventBytes,
  batchEventHead,
  formatEventId,
  positionText,
  recordsJsonBytes,
} from "../../translate/index.ts";
import { servedRecord, uint64Decimal } from "../../translate/served-records.test-helper.ts";
import { SharedEncodings } from "./shared-encodings.ts";

const big = fc.bigInt({ min: 0n, max: 2n ** 64n - 1n });
const format = fc.constantFrom("raw" as const, "base64" as const);
const mode = fc.constantFrom("number" as const, "string" as const);

test("a subscriber's head plus the shared rest is the event it would have framed alone, byte for byte", () => {
  fc.assert(
    fc.property(
      fc.array(servedRecord, { minLength: 1, maxLength: 5 }),
      fc.record({ seq_num: uint64Decimal, timestamp_ms: uint64Decimal }),
      fc.array(fc.record({ seq_num: big, count: big, bytes: big }), { minLength: 1, maxLength: 3 }),
      fc.array(fc.tuple(format, mode), { minLength: 1, maxLength: 6 }),
      (records, tail, ids, modes) => {
        const shared = new SharedEncodings();
        for (const [f, m] of modes) {
          const rest = shared.rest(records, tail, f, m);
          // The scratch JSON is good until the next writer: framed straight after each call.
          const { written, failure } = recordsJsonBytes(records, f, m);
          if (failure !== undefined || written < records.length) {
            // A record this mode cannot show: each subscriber frames its own (and its error).
            assert.equal(rest, undefined);
            continue;
          }
          assert.ok(rest);
          for (const id of ids) {
            const head = batchEventHead(formatEventId(id));
            const alone = batchEventBytes(
              head,
              recordsJsonBytes(records, f, m).json,
              positionText(tail, m),
            );
            assert.deepEqual(Buffer.concat([Buffer.from(head), rest]), alone);
          }
        }
      },
    ),
  );
});

test("the rest is made once per mode and then shared", () => {
  const records = [{ seq_num: "1", timestamp_ms: "2", headers: [], body: Buffer.from("x") }];
  const tail = { seq_num: "2", timestamp_ms: "2" };
  const shared = new SharedEncodings();
  const a = shared.rest(records, tail, "raw", "number");
  assert.equal(shared.rest(records, tail, "raw", "number"), a);
  assert.notEqual(shared.rest(records, tail, "base64", "number"), a);
  assert.notDeepEqual(shared.rest(records, tail, "raw", "string"), undefined);
});
