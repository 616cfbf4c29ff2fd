// A stream's throughput cap over gRPC, on a real star (wait bound 300 ms): an append the cap would
// hold too long is RESOURCE_EXHAUSTED with a typed ThroughputExceeded detail and stores nothing,
// in Append and in an AppendSession; one within the bound is held and appended; a rate
// reconfigured to 0 takes the next appends at once. Appends waiting on a slow object store are
// bounded in memory (--appends-in-flight-mb).
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { type ServiceError, status } from "@grpc/grpc-js";
import { findDetail } from "../../src/contract/proto/index.ts";
import type { AppendSessionResponse__Output } from "../../src/gen/nova/v1/AppendSessionResponse.ts";
import { withMethods } from "../../src/platform/objstore/store-overrides.test-helper.ts";
import { call, refusal } from "../harness/grpc.ts";
import { waitFor } from "../harness/wait.ts";
import { type StarFixture, startStarFixture, uniqueBucket } from "./fixture.ts";

let f: StarFixture;
before(async () => {
  f = await startStarFixture({ throughputMaxWaitMs: 300 });
});
after(() => f.close());

async function cappedStream(bytesPerSecond: number) {
  const bucket = uniqueBucket("tp");
  await call(f.client, "CreateBucket", { name: bucket });
  await call(f.client, "CreateStream", {
    bucket,
    key: "s",
    config: { class: "CLASS_EXPRESS", throughput_max_bytes_per_second: String(bytesPerSecond) },
  });
  return bucket;
}

const records = (bytes: number) => [{ body: Buffer.alloc(bytes, 0x61) }];

function assertOverCap(err: ServiceError | null | undefined) {
  assert.equal(err?.code, status.RESOURCE_EXHAUSTED, err?.details);
  assert.match(err?.details ?? "", /throughput cap \(1000 bytes\/s\).*longer than 300 ms/);
  const detail = findDetail(err?.metadata, "ThroughputExceeded");
  assert.equal(detail?.limit_bytes_per_second, "1000");
  const retryAfter = Number(detail?.retry_after_ms);
  assert.ok(retryAfter >= 1 && retryAfter <= 700, `retry_after_ms ${retryAfter}`);
}

test("Append: over the cap past the bound is refused and stores nothing; within it, appended", async () => {
  const bucket = await cappedStream(1000);
  const key = "s";
  const first = await call(f.client, "Append", { bucket, key, records: records(1000) });
  assert.equal(first.start?.seq_num, "0");
  // The bucket is empty: another second's budget would wait about 1000 ms, past 300.
  assertOverCap(await refusal(call(f.client, "Append", { bucket, key, records: records(1000) })));
  assert.equal((await call(f.client, "CheckTail", { bucket, key })).tail?.seq_num, "1");
  // 200 bytes wait about 200 ms: held, then appended right after the first.
  const held = await call(f.client, "Append", { bucket, key, records: records(200) });
  assert.deepEqual([held.start?.seq_num, held.end?.seq_num], ["1", "2"]);
  // Unlimited from the next append on.
  await call(f.client, "ReconfigureStream", {
    bucket,
    key,
    config: { throughput_max_bytes_per_second: "0" },
  });
  const burst = await Promise.all(
    [0, 1, 2].map(() => call(f.client, "Append", { bucket, key, records: records(5000) })),
  );
  assert.deepEqual(burst.map((a) => a.start?.seq_num).sort(), ["2", "3", "4"]);
  const read = await call(f.client, "Read", { bucket, key, seq_num: "0" });
  assert.deepEqual(
    read.records.map((r) => r.body.length),
    [1000, 200, 5000, 5000, 5000],
  );
});

test("AppendSession: a batch over the cap ends the session with the typed detail, after the acks before it", async () => {
  const bucket = await cappedStream(1000);
  const session = f.client.AppendSession();
  const frames: AppendSessionResponse__Output[] = [];
  const ended = new Promise<ServiceError | null>((resolve) => {
    session.on("data", (m: AppendSessionResponse__Output) => frames.push(m));
    session.on("error", (e: ServiceError) => resolve(e));
    session.on("end", () => resolve(null));
  });
  session.write({ open: { bucket, key: "s" } });
  session.write({ batch: { records: records(1000) } });
  session.write({ batch: { records: records(1000) } });
  session.end();
  assertOverCap(await ended);
  assert.deepEqual(
    frames.map((m) => m.frame),
    ["opened", "ack"],
  );
  assert.equal(frames[1]?.ack?.appended?.start?.seq_num, "0");
  const { tail } = await call(f.client, "CheckTail", { bucket, key: "s" });
  assert.equal(tail?.seq_num, "1", "nothing of the refused batch");
});

test("appends waiting on a slow object store are bounded in memory: past it RESOURCE_EXHAUSTED, nothing stored", async () => {
  // Log-object PUTs wait until the test lets them go: appends pile up in the star.
  let held = true;
  const waiting: (() => void)[] = [];
  const slow = await startStarFixture({ appendsInFlightBytes: 1024 * 1024 }, (store) =>
    withMethods(store, {
      putIf: async (key, body, conditions) => {
        if (held && key.startsWith("log/")) await new Promise<void>((go) => waiting.push(go));
        return store.putIf(key, body, conditions);
      },
    }),
  );
  try {
    const bucket = uniqueBucket("slow");
    await call(slow.client, "CreateBucket", { name: bucket });
    await call(slow.client, "CreateStream", { bucket, key: "s" });
    const first = call(slow.client, "Append", { bucket, key: "s", records: records(600 * 1024) });
    await waitFor(() => waiting.length > 0, { message: "the first append's PUT waits" });
    let second: ServiceError | "appended" | undefined;
    call(slow.client, "Append", { bucket, key: "s", records: records(600 * 1024) }).then(
      () => {
        second = "appended";
      },
      (err: ServiceError) => {
        second = err;
      },
    );
    await waitFor(() => second !== undefined, {
      message: "the second append answered while the first waits",
    });
    assert.ok(second instanceof Error, "the second append was taken past the bound");
    assert.equal(second.code, status.RESOURCE_EXHAUSTED);
    assert.match(second.details, /--appends-in-flight-mb.*retry shortly/);
    held = false;
    for (const go of waiting.splice(0)) go();
    assert.equal((await first).end?.seq_num, "1");
    // Once the first is committed the budget is free again, and the refused one stored nothing.
    const third = await call(slow.client, "Append", {
      bucket,
      key: "s",
      records: records(600 * 1024),
    });
    assert.equal(third.start?.seq_num, "1");
  } finally {
    held = false;
    for (const go of waiting.splice(0)) go();
    await slow.close();
  }
});
