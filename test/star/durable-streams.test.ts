// What the star keeps for the Durable Streams face (docs/durable-streams.md), over gRPC to a star
// process: a stream's content type, its expiry, the append checks on content type and writer
// seq, and the fork marks a reconfigure sets.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { status } from "@grpc/grpc-js";
import { findDetail } from "../../src/contract/proto/index.ts";
import { call, refusal } from "../harness/grpc.ts";
import { waitFor } from "../harness/wait.ts";
import { type StarFixture, startStarFixture, uniqueBucket } from "./fixture.ts";

let f: StarFixture;
before(async () => {
  f = await startStarFixture();
});
after(() => f.close());

const rec = (body: string) => ({ body: Buffer.from(body), headers: [] });

async function stream(config: Record<string, unknown>) {
  const bucket = uniqueBucket("ds");
  await call(f.client, "CreateBucket", { name: bucket });
  await call(f.client, "CreateStream", { bucket, key: "s", config });
  return { bucket, key: "s" };
}

test("a stream's content type and expiry are checked and kept", async () => {
  const bucket = uniqueBucket("ds");
  await call(f.client, "CreateBucket", { name: bucket });
  for (const config of [
    { content_type: "x".repeat(257) },
    { content_type: "text/plain\n" },
    { expire_idle_ms: "1000", expires_at_unix_ms: String(Date.now() + 60_000) },
  ]) {
    const err = await refusal(call(f.client, "CreateStream", { bucket, key: "bad", config }));
    assert.equal(err.code, status.INVALID_ARGUMENT, JSON.stringify(config));
  }
  const at = await stream({ content_type: "text/plain; charset=utf-8", expire_idle_ms: "60000" });
  const got = await call(f.client, "GetStream", at);
  assert.equal(got.stream?.content_type, "text/plain; charset=utf-8");
  assert.equal(got.stream?.expire_idle_ms, "60000");
});

test("an idle-expiring stream read only through ReadPlan stays alive", async () => {
  // An idle window a stall of the loaded machine does not pass between two plans.
  const at = await stream({ expire_idle_ms: "6000" });
  await call(f.client, "Append", { ...at, records: [rec("a")] });
  const since = Date.now();
  // Past the idle window, a plan asked for every 200 ms (a reader paging through history).
  while (Date.now() - since < 7_500) {
    await call(f.client, "ReadPlan", { ...at, seq_num: "0" });
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  assert.equal((await call(f.client, "GetStream", at)).stream?.key, "s");
});

test("an append of another media type is refused; a closed stream answers as closed first", async () => {
  const at = await stream({ content_type: "text/plain" });
  await call(f.client, "Append", { ...at, records: [rec("a")], content_type: "TEXT/Plain; x=y" });
  const err = await refusal(
    call(f.client, "Append", { ...at, records: [rec("b")], content_type: "application/json" }),
  );
  assert.equal(err.code, status.FAILED_PRECONDITION);
  assert.equal(findDetail(err.metadata, "ContentTypeMismatch")?.stream_content_type, "text/plain");
  await call(f.client, "Append", { ...at, records: [], close: true });
  const closed = await refusal(
    call(f.client, "Append", { ...at, records: [rec("c")], content_type: "application/json" }),
  );
  assert.ok(findDetail(closed.metadata, "StreamClosed"), closed.message);
  assert.equal((await call(f.client, "CheckTail", at)).tail?.seq_num, "1");
});

test("a closed stream trimmed to its tail: a read from below the trim point says closed", async () => {
  const at = await stream({});
  await call(f.client, "Append", { ...at, records: [rec("a"), rec("b"), rec("c")] });
  await call(f.client, "Trim", { ...at, seq_num: "3" });
  await call(f.client, "Append", { ...at, records: [], close: true });
  for (const seq of ["0", "2", "3"]) {
    const page = await call(f.client, "Read", { ...at, seq_num: seq });
    assert.deepEqual([page.records.length, page.closed], [0, true], `from ${seq}`);
  }
});

test("writer seqs: a regression and one over 1 KiB are refused, and nothing is appended", async () => {
  const at = await stream({});
  await call(f.client, "Append", { ...at, records: [rec("a")], writer_seq: "b" });
  const regression = await refusal(
    call(f.client, "Append", { ...at, records: [rec("x")], writer_seq: "a" }),
  );
  assert.equal(findDetail(regression.metadata, "WriterSeqRegression")?.last_writer_seq, "b");
  const long = await refusal(
    call(f.client, "Append", { ...at, records: [rec("x")], writer_seq: "z".repeat(1025) }),
  );
  assert.equal(long.code, status.INVALID_ARGUMENT);
  assert.equal((await call(f.client, "CheckTail", at)).tail?.seq_num, "1");
});

test("a stream past its Expires-At is NOT_FOUND to every verb, and its path free again", async () => {
  const at = await stream({ expires_at_unix_ms: String(Date.now() + 300) });
  await waitFor(
    async () => (await refusal(call(f.client, "GetStream", at))).code === status.NOT_FOUND,
    {
      message: "the stream to expire",
    },
  );
  for (const verb of ["CheckTail", "Read"] as const) {
    assert.equal((await refusal(call(f.client, verb, at))).code, status.NOT_FOUND, verb);
  }
  await call(f.client, "CreateStream", { ...at, config: {} });
  assert.equal((await call(f.client, "CheckTail", at)).tail?.seq_num, "0");
});

test("the fork marks are set by a reconfigure and kept", async () => {
  const at = await stream({ fork_origin: "origin" });
  const now = String(Date.now());
  await call(f.client, "ReconfigureStream", {
    ...at,
    config: { forked: true, retired_at_unix_ms: now },
  });
  const got = (await call(f.client, "GetStream", at)).stream;
  assert.equal(got?.fork_origin, "origin");
  assert.equal(got?.forked, true);
  assert.equal(got?.retired_at_unix_ms, now);
});
