import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import { appendRecord, uint64 } from "./arbitraries.test-helper.ts";
import { planAppend } from "./commands.ts";
import { meteredBytes } from "./metering.ts";

const command = (op: string, body: Buffer) => ({
  headers: [{ name: Buffer.alloc(0), value: Buffer.from(op) }],
  body,
});
const trimPoint = (n: bigint) => {
  const b = Buffer.alloc(8);
  b.writeBigUInt64BE(n);
  return b;
};
const refused = (input: Parameters<typeof planAppend>[0], says: string) =>
  assert.throws(
    () => planAppend(input),
    (err: { status: number; code: string; message: string }) =>
      err.status === 422 && err.code === "invalid" && err.message.includes(says),
  );

test("a batch of data records is nova's append, conditions kept", () => {
  fc.assert(
    fc.property(fc.array(appendRecord, { minLength: 1, maxLength: 5 }), uint64, (records, m) => {
      const plan = planAppend({ records, match_seq_num: m, fencing_token: "t" });
      assert.equal(plan.commands, false);
      assert.equal(plan.batch.records.length, records.length);
      assert.equal(plan.batch.match_seq_num, m);
      assert.equal(plan.batch.fencing_token, "t");
    }),
  );
});

test("command records are records of the batch, with data and under conditions", () => {
  fc.assert(
    fc.property(uint64, (n) => {
      const fence = command("fence", Buffer.from("tok-1"));
      const trim = command("trim", trimPoint(BigInt(n)));
      const data = { headers: [], body: Buffer.from("x") };
      const plan = planAppend({ records: [data, fence, trim], match_seq_num: "3" });
      assert.equal(plan.commands, true);
      assert.equal(plan.batch.match_seq_num, "3");
      assert.deepEqual(
        plan.batch.records.map((r) => [r.headers, r.body]),
        [
          [[], data.body],
          [[{ name: fence.headers[0]?.name, value: fence.headers[0]?.value }], fence.body],
          [[{ name: trim.headers[0]?.name, value: trim.headers[0]?.value }], trim.body],
        ],
      );
    }),
  );
  assert.equal(planAppend({ records: [command("fence", Buffer.alloc(0))] }).commands, true);
});

test("bad command records are refused", () => {
  refused({ records: [command("trim", Buffer.alloc(7))] }, "8-byte");
  refused({ records: [command("fence", Buffer.from([0xff]))] }, "UTF-8");
  refused({ records: [command("fence", Buffer.alloc(49, 97))] }, "at most 48");
  refused({ records: [command("seal", Buffer.alloc(0))] }, "not a command");
  refused(
    {
      records: [
        {
          headers: [
            { name: Buffer.alloc(0), value: Buffer.from("fence") },
            { name: Buffer.from("a"), value: Buffer.alloc(0) },
          ],
          body: Buffer.alloc(0),
        },
      ],
    },
    "exactly one header",
  );
});

test("S2's batch limits: at least 1 and at most 1000 records, at most 1 MiB metered", () => {
  refused({ records: [] }, "at least one");
  const one = { headers: [], body: Buffer.alloc(0) };
  refused({ records: Array.from({ length: 1001 }, () => one) }, "at most 1000");
  // 8 bytes of overhead per record count: a body of 1 MiB - 8 fits, one more byte does not.
  const fits = { headers: [], body: Buffer.alloc(1024 * 1024 - 8) };
  assert.equal(meteredBytes(fits), 1024 * 1024);
  assert.equal(planAppend({ records: [fits] }).commands, false);
  refused({ records: [{ headers: [], body: Buffer.alloc(1024 * 1024 - 7) }] }, "metered bytes");
});

test("metering is 8 + 2 per header + every byte", () => {
  fc.assert(
    fc.property(appendRecord, (r) => {
      const content =
        r.body.length + r.headers.reduce((n, h) => n + h.name.length + h.value.length, 0);
      assert.equal(meteredBytes(r), 8 + 2 * r.headers.length + content);
    }),
  );
});
