import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { status } from "@grpc/grpc-js";
import { findDetail } from "../../src/contract/proto/index.ts";
import { MAX_BATCH_RECORDS } from "../../src/contract/wire-limits.ts";
import { call, settleStar } from "../harness/grpc.ts";
import { waitFor } from "../harness/wait.ts";
import { type StarFixture, startStarFixture, uniqueBucket } from "./fixture.ts";

let f: StarFixture;
before(async () => {
  f = await startStarFixture();
});
after(() => f.close());

const rec = (body: string, headers: [string, string][] = []) => ({
  body: Buffer.from(body),
  headers: headers.map(([name, value]) => ({ name: Buffer.from(name), value: Buffer.from(value) })),
});

async function bucketWithStream(config = {}) {
  const bucket = uniqueBucket();
  await call(f.client, "CreateBucket", { name: bucket });
  await call(f.client, "CreateStream", { bucket, key: "s", config });
  return bucket;
}

describe("buckets", () => {
  test("create, get, list, reconfigure, delete", async () => {
    const name = uniqueBucket("buck");
    const created = await call(f.client, "CreateBucket", {
      name,
      config: { create_stream_on_append: true, default_class: "CLASS_EXPRESS" },
    });
    assert.equal(created.bucket?.name, name);
    assert.equal(created.bucket?.default_class, "CLASS_EXPRESS");
    assert.equal(created.bucket?.create_stream_on_append, true);
    const got = await call(f.client, "GetBucket", { name });
    assert.deepEqual(got.bucket, created.bucket);
    const listed = await call(f.client, "ListBuckets", { prefix: name });
    assert.deepEqual(
      listed.buckets.map((b) => b.name),
      [name],
    );
    const reconf = await call(f.client, "ReconfigureBucket", {
      name,
      config: { default_retention_max_bytes: "0", create_stream_on_read: true },
    });
    assert.equal(reconf.bucket?.create_stream_on_read, true);
    assert.equal(reconf.bucket?.default_class, "CLASS_EXPRESS");
    await call(f.client, "DeleteBucket", { name });
    await assert.rejects(call(f.client, "GetBucket", { name }), { code: status.NOT_FOUND });
    // Deleting it again is quiet, as DeleteStream is; a bucket that never was is NOT_FOUND.
    await call(f.client, "DeleteBucket", { name });
    await assert.rejects(call(f.client, "DeleteBucket", { name: uniqueBucket() }), {
      code: status.NOT_FOUND,
    });
  });

  test("a retry with the creation token converges; without it, ALREADY_EXISTS", async () => {
    const name = uniqueBucket();
    const a = await call(f.client, "CreateBucket", { name, creation_token: "t1" });
    const b = await call(f.client, "CreateBucket", { name, creation_token: "t1" });
    assert.deepEqual(a, b);
    await assert.rejects(call(f.client, "CreateBucket", { name, creation_token: "t2" }), {
      code: status.ALREADY_EXISTS,
    });
  });

  test("a creation token over 512 bytes is INVALID_ARGUMENT, and nothing is made", async () => {
    const name = uniqueBucket();
    const long = "é".repeat(257);
    await assert.rejects(call(f.client, "CreateBucket", { name, creation_token: long }), {
      code: status.INVALID_ARGUMENT,
    });
    await assert.rejects(call(f.client, "GetBucket", { name }), { code: status.NOT_FOUND });
    await call(f.client, "CreateBucket", { name, creation_token: "é".repeat(256) });
    await assert.rejects(
      call(f.client, "CreateStream", { bucket: name, key: "s", creation_token: long }),
      { code: status.INVALID_ARGUMENT },
    );
    await assert.rejects(call(f.client, "GetStream", { bucket: name, key: "s" }), {
      code: status.NOT_FOUND,
    });
  });

  test("the creation token with another config is not a retry: ALREADY_EXISTS, saying so", async () => {
    const name = uniqueBucket();
    const asked = { default_retention_max_age_ms: "60000" };
    const made = await call(f.client, "CreateBucket", { name, config: asked, creation_token: "b" });
    const clash = /creation_token was sent with another config/;
    await assert.rejects(call(f.client, "CreateBucket", { name, creation_token: "b" }), {
      code: status.ALREADY_EXISTS,
      details: clash,
    });
    await assert.rejects(
      call(f.client, "CreateBucket", {
        name,
        config: { default_retention_max_age_ms: "0" },
        creation_token: "b",
      }),
      { code: status.ALREADY_EXISTS, details: clash },
    );
    // A late retry converges on the bucket as it is now, reconfigured since.
    await call(f.client, "ReconfigureBucket", { name, config: { default_class: "CLASS_EXPRESS" } });
    const retried = await call(f.client, "CreateBucket", {
      name,
      config: asked,
      creation_token: "b",
    });
    assert.equal(retried.bucket?.created_at_unix_ms, made.bucket?.created_at_unix_ms);
    assert.equal(retried.bucket?.default_class, "CLASS_EXPRESS");

    const stream = { bucket: name, key: "k", creation_token: "s" };
    const config = { retention_max_age_ms: "1000", class: "CLASS_STANDARD" as const };
    const first = await call(f.client, "CreateStream", { ...stream, config });
    const again = await call(f.client, "CreateStream", { ...stream, config });
    assert.deepEqual(again, first);
    for (const other of [{ retention_max_age_ms: "2000" }, { retention_max_age_ms: "1000" }]) {
      await assert.rejects(call(f.client, "CreateStream", { ...stream, config: other }), {
        code: status.ALREADY_EXISTS,
        details: clash,
      });
    }
    await assert.rejects(call(f.client, "CreateStream", { ...stream, creation_token: "t" }), {
      code: status.ALREADY_EXISTS,
      details: /^stream "k" already exists in bucket "[^"]+"$/,
    });
  });

  test("bad names and UNSPECIFIED enums are INVALID_ARGUMENT", async () => {
    await assert.rejects(call(f.client, "CreateBucket", { name: "Bad_Name" }), {
      code: status.INVALID_ARGUMENT,
    });
    const name = uniqueBucket();
    await call(f.client, "CreateBucket", { name });
    await assert.rejects(
      call(f.client, "ReconfigureBucket", { name, config: { default_class: "CLASS_UNSPECIFIED" } }),
      { code: status.INVALID_ARGUMENT },
    );
  });

  test("list pages with start_after and limit", async () => {
    const prefix = uniqueBucket("page");
    for (const n of ["a", "b", "c"])
      await call(f.client, "CreateBucket", { name: `${prefix}-${n}` });
    const p1 = await call(f.client, "ListBuckets", { prefix, limit: 2 });
    assert.deepEqual(
      p1.buckets.map((b) => b.name),
      [`${prefix}-a`, `${prefix}-b`],
    );
    assert.equal(p1.next, `${prefix}-b`);
    const p2 = await call(f.client, "ListBuckets", { prefix, start_after: p1.next, limit: 2 });
    assert.deepEqual(
      p2.buckets.map((b) => b.name),
      [`${prefix}-c`],
    );
    assert.equal(p2.next, "");
  });
});

describe("streams", () => {
  test("create takes bucket defaults for unset fields", async () => {
    const bucket = uniqueBucket();
    await call(f.client, "CreateBucket", {
      name: bucket,
      config: { default_class: "CLASS_EXPRESS", default_retention_max_bytes: "1000" },
    });
    const { stream } = await call(f.client, "CreateStream", {
      bucket,
      key: "a/b ü",
      config: { retention_max_bytes: "0", producer_policy: "PRODUCER_POLICY_FENCED" },
    });
    assert.equal(stream?.class, "CLASS_EXPRESS");
    assert.equal(stream?.retention_max_bytes, "0");
    assert.equal(stream?.producer_policy, "PRODUCER_POLICY_FENCED");
    assert.equal(stream?.key, "a/b ü");
    const got = await call(f.client, "GetStream", { bucket, key: "a/b ü" });
    assert.deepEqual(got.stream, stream);
    assert.equal(got.fencing_token, "");
  });

  test("create in a missing bucket is NOT_FOUND; twice is ALREADY_EXISTS", async () => {
    await assert.rejects(call(f.client, "CreateStream", { bucket: uniqueBucket(), key: "s" }), {
      code: status.NOT_FOUND,
      details: /bucket/,
    });
    const bucket = await bucketWithStream();
    await assert.rejects(call(f.client, "CreateStream", { bucket, key: "s" }), {
      code: status.ALREADY_EXISTS,
    });
  });

  test("uncapped timestamping with age retention is refused at create and reconfigure", async () => {
    const bucket = uniqueBucket();
    await call(f.client, "CreateBucket", { name: bucket });
    await assert.rejects(
      call(f.client, "CreateStream", {
        bucket,
        key: "u",
        config: { timestamping_uncapped: true, retention_max_age_ms: "1000" },
      }),
      { code: status.INVALID_ARGUMENT, details: /mutually exclusive/ },
    );
    await call(f.client, "CreateStream", {
      bucket,
      key: "u",
      config: { timestamping_uncapped: true },
    });
    await assert.rejects(
      call(f.client, "ReconfigureStream", {
        bucket,
        key: "u",
        config: { retention_max_age_ms: "5" },
      }),
      { code: status.INVALID_ARGUMENT },
    );
  });

  test("reconfigure: absent unchanged, present set (zero included), UNSPECIFIED refused", async () => {
    const bucket = uniqueBucket();
    await call(f.client, "CreateBucket", { name: bucket });
    await call(f.client, "CreateStream", {
      bucket,
      key: "s",
      config: { retention_max_age_ms: "60000", class: "CLASS_EXPRESS" },
    });
    const { stream } = await call(f.client, "ReconfigureStream", {
      bucket,
      key: "s",
      config: { retention_max_age_ms: "0" },
    });
    assert.equal(stream?.retention_max_age_ms, "0");
    assert.equal(stream?.class, "CLASS_EXPRESS");
    await assert.rejects(
      call(f.client, "ReconfigureStream", {
        bucket,
        key: "s",
        config: { class: "CLASS_UNSPECIFIED" },
      }),
      { code: status.INVALID_ARGUMENT, details: /class/ },
    );
  });

  test("list streams pages in key order with prefix", async () => {
    const bucket = uniqueBucket();
    await call(f.client, "CreateBucket", { name: bucket });
    for (const key of ["x/3", "x/1", "y", "x/2"])
      await call(f.client, "CreateStream", { bucket, key });
    const p1 = await call(f.client, "ListStreams", { bucket, prefix: "x/", limit: 2 });
    assert.deepEqual(
      p1.streams.map((s) => s.key),
      ["x/1", "x/2"],
    );
    const p2 = await call(f.client, "ListStreams", { bucket, prefix: "x/", start_after: p1.next });
    assert.deepEqual(
      p2.streams.map((s) => s.key),
      ["x/3"],
    );
    assert.equal(p2.next, "");
  });

  test("delete is idempotent, later verbs are NOT_FOUND, a never-existing stream is NOT_FOUND", async () => {
    const bucket = await bucketWithStream();
    await call(f.client, "Append", { bucket, key: "s", records: [rec("x")] });
    await call(f.client, "DeleteStream", { bucket, key: "s" });
    await call(f.client, "DeleteStream", { bucket, key: "s" });
    for (const verb of ["GetStream", "CheckTail", "Read"] as const) {
      await assert.rejects(call(f.client, verb, { bucket, key: "s" }), {
        code: status.NOT_FOUND,
        details: /stream/,
      });
    }
    await assert.rejects(call(f.client, "Append", { bucket, key: "s", records: [rec("y")] }), {
      code: status.NOT_FOUND,
    });
    await assert.rejects(call(f.client, "DeleteStream", { bucket, key: "never" }), {
      code: status.NOT_FOUND,
    });
    const listed = await call(f.client, "ListStreams", { bucket });
    assert.equal(listed.streams.length, 0);
  });

  test("create_stream_on_append and create_stream_on_read; CheckTail never creates", async () => {
    const bucket = uniqueBucket();
    await call(f.client, "CreateBucket", {
      name: bucket,
      config: { create_stream_on_append: true, create_stream_on_read: true },
    });
    await assert.rejects(call(f.client, "CheckTail", { bucket, key: "c" }), {
      code: status.NOT_FOUND,
    });
    const ack = await call(f.client, "Append", { bucket, key: "a", records: [rec("1")] });
    assert.equal(ack.start?.seq_num, "0");
    const read = await call(f.client, "Read", { bucket, key: "r" });
    assert.equal(read.records.length, 0);
    assert.equal(read.tail?.seq_num, "0");
    const { streams } = await call(f.client, "ListStreams", { bucket });
    assert.deepEqual(
      streams.map((s) => s.key),
      ["a", "r"],
    );
  });
});

describe("append and read", () => {
  test("a batch gets one unbroken range and one timestamp; read returns it exactly", async () => {
    const bucket = await bucketWithStream();
    const tail0 = await call(f.client, "CheckTail", { bucket, key: "s" });
    assert.deepEqual(tail0.tail, { seq_num: "0", timestamp_ms: "0" });
    const ack = await call(f.client, "Append", {
      bucket,
      key: "s",
      records: [
        rec("a", [
          ["k", "v"],
          ["k", "w"],
        ]),
        rec(""),
        rec("c"),
      ],
    });
    assert.equal(ack.start?.seq_num, "0");
    assert.equal(ack.end?.seq_num, "3");
    assert.equal(ack.tail?.seq_num, "3");
    assert.equal(ack.start?.timestamp_ms, ack.end?.timestamp_ms);
    const read = await call(f.client, "Read", { bucket, key: "s", seq_num: "0" });
    assert.deepEqual(
      read.records.map((r) => [
        r.seq_num,
        r.body.toString(),
        r.headers.map((h) => `${h.name}=${h.value}`),
      ]),
      [
        ["0", "a", ["k=v", "k=w"]],
        ["1", "", []],
        ["2", "c", []],
      ],
    );
    assert.equal(read.tail?.seq_num, "3");
  });

  test("validation refuses the whole batch, naming the record and the rule", async () => {
    const bucket = await bucketWithStream();
    const cases: [unknown[], RegExp][] = [
      [[], /at least one record/],
      [[rec("ok"), rec("x", [["", "v"]])], /record 1: "v" is not a command/],
      [
        [
          rec("x", [
            ["", "fence"],
            ["h", "v"],
          ]),
        ],
        /record 0: .*has that one header only/,
      ],
      [[rec("x", [["", "trim"]])], /record 0: a trim's body is the seq_num to trim to/],
      [[{ body: Buffer.alloc(1024 * 1024 + 1) }], /record 0: .* per-record cap/],
      [
        [
          rec(
            "x",
            Array.from({ length: 101 }, () => ["h", "v"] as [string, string]),
          ),
        ],
        /101 headers/,
      ],
      [
        Array.from({ length: MAX_BATCH_RECORDS + 1 }, () => rec("")),
        /a batch holds at most 10000 records; send more as several batches/,
      ],
    ];
    for (const [records, message] of cases) {
      await assert.rejects(
        call(f.client, "Append", { bucket, key: "s", records: records as never }),
        { code: status.INVALID_ARGUMENT, details: message },
      );
    }
    const { tail } = await call(f.client, "CheckTail", { bucket, key: "s" });
    assert.equal(tail?.seq_num, "0", "nothing of a refused batch was appended");
  });

  test("timestamps: client-prefer caps at arrival and clamps monotonic; uncapped keeps 2^60+1", async () => {
    const bucket = await bucketWithStream();
    const future = String(Date.now() + 3_600_000);
    const a = await call(f.client, "Append", {
      bucket,
      key: "s",
      records: [{ body: Buffer.from("f"), timestamp_ms: future }],
    });
    assert.ok(BigInt(a.start?.timestamp_ms ?? "0") <= BigInt(Date.now()));
    const b = await call(f.client, "Append", {
      bucket,
      key: "s",
      records: [{ body: Buffer.from("old"), timestamp_ms: "5" }],
    });
    assert.equal(b.start?.timestamp_ms, a.start?.timestamp_ms, "clamped to the previous stamp");

    await call(f.client, "CreateStream", {
      bucket,
      key: "u",
      config: { timestamping_uncapped: true },
    });
    const big = (2n ** 60n + 1n).toString();
    const u = await call(f.client, "Append", {
      bucket,
      key: "u",
      records: [{ body: Buffer.from("u"), timestamp_ms: big }],
    });
    assert.equal(u.start?.timestamp_ms, big);
    const read = await call(f.client, "Read", { bucket, key: "u", seq_num: "0" });
    assert.equal(read.records[0]?.timestamp_ms, big);
  });

  test("client-require and arrival refuse missing and present stamps", async () => {
    const bucket = uniqueBucket();
    await call(f.client, "CreateBucket", { name: bucket });
    await call(f.client, "CreateStream", {
      bucket,
      key: "req",
      config: { timestamping_mode: "TIMESTAMPING_MODE_CLIENT_REQUIRE" },
    });
    await call(f.client, "CreateStream", {
      bucket,
      key: "arr",
      config: { timestamping_mode: "TIMESTAMPING_MODE_ARRIVAL" },
    });
    await assert.rejects(call(f.client, "Append", { bucket, key: "req", records: [rec("x")] }), {
      code: status.INVALID_ARGUMENT,
      details: /requires a client timestamp/,
    });
    await assert.rejects(
      call(f.client, "Append", {
        bucket,
        key: "arr",
        records: [{ body: Buffer.from("x"), timestamp_ms: "1" }],
      }),
      { code: status.INVALID_ARGUMENT, details: /arrival/ },
    );
  });

  test("match_seq_num: a miss is FAILED_PRECONDITION with the expected seq_num", async () => {
    const bucket = await bucketWithStream();
    await call(f.client, "Append", { bucket, key: "s", records: [rec("a")], match_seq_num: "0" });
    const err = await call(f.client, "Append", {
      bucket,
      key: "s",
      records: [rec("b")],
      match_seq_num: "0",
    }).catch((e) => e);
    assert.equal(err.code, status.FAILED_PRECONDITION);
    assert.deepEqual(findDetail(err.metadata, "SeqNumMismatch"), { expected_seq_num: "1" });
  });

  test("fencing: install, mismatch detail, rotate, clear; GetStream shows the token", async () => {
    const bucket = await bucketWithStream({ producer_policy: "PRODUCER_POLICY_FENCED" });
    await call(f.client, "Append", { bucket, key: "s", records: [rec("before")] });
    const fenced = await call(f.client, "Fence", { bucket, key: "s", fencing_token: "t1" });
    assert.equal(fenced.tail?.seq_num, "1");
    const err = await call(f.client, "Append", { bucket, key: "s", records: [rec("x")] }).catch(
      (e) => e,
    );
    assert.equal(err.code, status.FAILED_PRECONDITION);
    assert.deepEqual(findDetail(err.metadata, "FencingTokenMismatch"), { token_installed: true });
    await call(f.client, "Append", { bucket, key: "s", records: [rec("y")], fencing_token: "t1" });
    assert.equal((await call(f.client, "GetStream", { bucket, key: "s" })).fencing_token, "t1");
    await call(f.client, "Fence", { bucket, key: "s", fencing_token: "t2" });
    await assert.rejects(
      call(f.client, "Append", { bucket, key: "s", records: [rec("z")], fencing_token: "t1" }),
      { code: status.FAILED_PRECONDITION },
    );
    await call(f.client, "Fence", { bucket, key: "s", fencing_token: "" });
    await call(f.client, "Append", { bucket, key: "s", records: [rec("free")] });
    await assert.rejects(
      call(f.client, "Fence", { bucket, key: "s", fencing_token: "x".repeat(49) }),
      { code: status.INVALID_ARGUMENT, details: /48/ },
    );
  });

  test("read: page budgets, tail_offset, until_ms, beyond the tail, clamp", async () => {
    const bucket = await bucketWithStream();
    for (let i = 0; i < 5; i++) {
      await call(f.client, "Append", { bucket, key: "s", records: [rec(`r${i}`), rec(`q${i}`)] });
    }
    const counted = await call(f.client, "Read", { bucket, key: "s", seq_num: "2", count: 3 });
    assert.deepEqual(
      counted.records.map((r) => r.seq_num),
      ["2", "3", "4"],
    );
    const byBytes = await call(f.client, "Read", { bucket, key: "s", seq_num: "0", bytes: "5" });
    assert.deepEqual(
      byBytes.records.map((r) => r.seq_num),
      ["0", "1"],
    );
    const atLeastOne = await call(f.client, "Read", { bucket, key: "s", seq_num: "0", bytes: "1" });
    assert.equal(atLeastOne.records.length, 1);
    const fromTail = await call(f.client, "Read", { bucket, key: "s", tail_offset: "2" });
    assert.deepEqual(
      fromTail.records.map((r) => r.seq_num),
      ["8", "9"],
    );
    const atTail = await call(f.client, "Read", { bucket, key: "s", seq_num: "10" });
    assert.equal(atTail.records.length, 0);
    assert.equal(atTail.tail?.seq_num, "10");
    const err = await call(f.client, "Read", { bucket, key: "s", seq_num: "11" }).catch((e) => e);
    assert.equal(err.code, status.OUT_OF_RANGE);
    assert.equal(findDetail(err.metadata, "TailDetail")?.tail?.seq_num, "10");
    const clamped = await call(f.client, "Read", { bucket, key: "s", seq_num: "11", clamp: true });
    assert.equal(clamped.records.length, 0);
    const first = await call(f.client, "Read", { bucket, key: "s", seq_num: "0", count: 1 });
    const ts = first.records[0]?.timestamp_ms ?? "0";
    const until = await call(f.client, "Read", { bucket, key: "s", seq_num: "0", until_ms: ts });
    assert.equal(until.records.length, 0);
  });

  test("trim: monotonic, records below gone at once, by timestamp too", async () => {
    const bucket = await bucketWithStream();
    for (let i = 0; i < 4; i++)
      await call(f.client, "Append", { bucket, key: "s", records: [rec(`${i}`)] });
    await call(f.client, "Trim", { bucket, key: "s", seq_num: "2" });
    const read = await call(f.client, "Read", { bucket, key: "s", seq_num: "0" });
    assert.deepEqual(
      read.records.map((r) => r.seq_num),
      ["2", "3"],
    );
    await call(f.client, "Trim", { bucket, key: "s", seq_num: "1" });
    const again = await call(f.client, "Read", { bucket, key: "s", seq_num: "0" });
    assert.equal(again.records[0]?.seq_num, "2", "trim never moves back");
    const last = again.records[1]?.timestamp_ms ?? "0";
    await call(f.client, "Trim", {
      bucket,
      key: "s",
      timestamp_ms: (BigInt(last) + 1n).toString(),
    });
    const none = await call(f.client, "Read", { bucket, key: "s", seq_num: "0" });
    assert.equal(none.records.length, 0);
    assert.equal(none.tail?.seq_num, "4");
  });

  test("20 concurrent producers get contiguous seq_nums with every batch unbroken", async () => {
    const bucket = await bucketWithStream();
    const acks = await Promise.all(
      Array.from({ length: 20 }, (_, p) =>
        call(f.client, "Append", {
          bucket,
          key: "s",
          records: Array.from({ length: 5 }, (_, i) => rec(`${p}:${i}`)),
        }),
      ),
    );
    const read = await call(f.client, "Read", { bucket, key: "s", seq_num: "0" });
    assert.equal(read.records.length, 100);
    for (const [i, r] of read.records.entries()) assert.equal(r.seq_num, String(i));
    for (const ack of acks) {
      const start = Number(ack.start?.seq_num);
      const bodies = read.records.slice(start, start + 5).map((r) => r.body.toString());
      const producer = bodies[0]?.split(":")[0];
      assert.deepEqual(
        bodies,
        Array.from({ length: 5 }, (_, i) => `${producer}:${i}`),
      );
    }
  });
});

describe("retention and reclaim", () => {
  async function chunkCount(bucket: string, key: string) {
    const { stream } = await call(f.client, "GetStream", { bucket, key });
    return (await f.store.list(`chunks/${stream?.stream_id}/`)).objects.length;
  }

  test("age retention trims records older than the limit, live", async () => {
    const bucket = uniqueBucket();
    await call(f.client, "CreateBucket", { name: bucket });
    await call(f.client, "CreateStream", { bucket, key: "s" });
    const old = String(Date.now() - 600_000);
    await call(f.client, "Append", {
      bucket,
      key: "s",
      records: [{ body: Buffer.from("old"), timestamp_ms: old }],
    });
    await call(f.client, "Append", { bucket, key: "s", records: [{ body: Buffer.from("new") }] });
    await call(f.client, "ReconfigureStream", {
      bucket,
      key: "s",
      config: { retention_max_age_ms: "60000" },
    });
    await waitFor(
      async () =>
        (await call(f.client, "Read", { bucket, key: "s", seq_num: "0" })).records[0]?.seq_num ===
        "1",
      { timeoutMs: 10_000, message: "the old record trimmed" },
    );
  });

  test("size retention keeps at most the limit of content bytes, whole chunks at a time", async () => {
    const bucket = uniqueBucket();
    await call(f.client, "CreateBucket", { name: bucket });
    await call(f.client, "CreateStream", {
      bucket,
      key: "s",
      config: { retention_max_bytes: "250" },
    });
    // Settled one append at a time: one chunk each.
    for (let i = 0; i < 5; i++) {
      await call(f.client, "Append", {
        bucket,
        key: "s",
        records: [{ body: Buffer.alloc(100, i) }],
      });
      await settleStar(f.star.address);
    }
    await waitFor(
      async () =>
        (await call(f.client, "Read", { bucket, key: "s", seq_num: "0" })).records.length === 2,
      { timeoutMs: 10_000, message: "two records kept" },
    );
    await waitFor(async () => (await chunkCount(bucket, "s")) === 2, {
      timeoutMs: 10_000,
      message: "trimmed chunks reclaimed",
    });
  });

  test("trim reclaims chunks wholly below the trim point, keeping the newest", async () => {
    const bucket = await bucketWithStream();
    for (let i = 0; i < 4; i++) {
      await call(f.client, "Append", { bucket, key: "s", records: [rec(`${i}`)] });
      await settleStar(f.star.address);
    }
    assert.equal(await chunkCount(bucket, "s"), 4);
    await call(f.client, "Trim", { bucket, key: "s", seq_num: "4" });
    await waitFor(async () => (await chunkCount(bucket, "s")) === 1, {
      timeoutMs: 10_000,
      message: "chunks reclaimed",
    });
    const { tail } = await call(f.client, "CheckTail", { bucket, key: "s" });
    assert.equal(tail?.seq_num, "4");
  });

  test("a deleted stream's chunks are reclaimed in the background", async () => {
    const bucket = await bucketWithStream();
    await call(f.client, "Append", { bucket, key: "s", records: [rec("x")] });
    await settleStar(f.star.address);
    const { stream } = await call(f.client, "GetStream", { bucket, key: "s" });
    await call(f.client, "DeleteStream", { bucket, key: "s" });
    await waitFor(
      async () => (await f.store.list(`chunks/${stream?.stream_id}/`)).objects.length === 0,
      { timeoutMs: 10_000, message: "chunks deleted" },
    );
  });
});
