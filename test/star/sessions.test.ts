import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { setTimeout as delay } from "node:timers/promises";
import { type ClientDuplexStream, type ServiceError, status } from "@grpc/grpc-js";
import { findDetail } from "../../src/contract/proto/index.ts";
import { MAX_BATCH_RECORDS } from "../../src/contract/wire-limits.ts";
import type { AppendSessionRequest } from "../../src/gen/nova/v1/AppendSessionRequest.ts";
import type { AppendSessionResponse__Output } from "../../src/gen/nova/v1/AppendSessionResponse.ts";
import type { SubscribeResponse__Output } from "../../src/gen/nova/v1/SubscribeResponse.ts";
import { withMethods } from "../../src/platform/objstore/store-overrides.test-helper.ts";
import { call, starStats } from "../harness/grpc.ts";
import { waitFor } from "../harness/wait.ts";
import { type StarFixture, startStarFixture, uniqueBucket } from "./fixture.ts";

let f: StarFixture;
before(async () => {
  f = await startStarFixture({ sessionWindow: 2, maxSessions: 4 });
});
after(() => f.close());

type Session = ClientDuplexStream<AppendSessionRequest, AppendSessionResponse__Output>;

/** Collects a session's responses and how it ended. */
function collect(session: Session) {
  const frames: AppendSessionResponse__Output[] = [];
  const ended = new Promise<ServiceError | null>((resolve) => {
    session.on("data", (m: AppendSessionResponse__Output) => frames.push(m));
    session.on("error", (e: ServiceError) => resolve(e));
    session.on("end", () => resolve(null));
  });
  return { frames, ended };
}

const batch = (body: string, match?: number) => ({
  batch: {
    records: [{ body: Buffer.from(body) }],
    ...(match === undefined ? {} : { match_seq_num: String(match) }),
  },
});

async function freshStream(config = {}) {
  const bucket = uniqueBucket();
  await call(f.client, "CreateBucket", { name: bucket });
  await call(f.client, "CreateStream", { bucket, key: "s", config });
  return bucket;
}

describe("AppendSession", () => {
  test("a first frame that is not open ends the session with INVALID_ARGUMENT", async () => {
    const session = f.client.AppendSession();
    const { ended } = collect(session);
    session.write(batch("x"));
    const err = await ended;
    assert.equal(err?.code, status.INVALID_ARGUMENT);
    assert.match(err?.details ?? "", /first frame/);
  });

  test("pipelined batches are acked in order; a match miss takes its slot and the session goes on", async () => {
    const bucket = await freshStream();
    const session = f.client.AppendSession();
    const { frames, ended } = collect(session);
    session.write({ open: { bucket, key: "s" } });
    for (let i = 0; i < 30; i++) session.write(batch(`b${i}`, i === 10 ? 999 : undefined));
    session.end();
    assert.equal(await ended, null, "half-close ends the session cleanly");
    assert.equal(frames[0]?.frame, "opened");
    assert.equal(frames[0]?.opened?.window, 2);
    const acks = frames.slice(1).map((m) => m.ack);
    assert.equal(acks.length, 30);
    acks.forEach((ack, i) => {
      assert.equal(ack?.batch_index, String(i));
    });
    assert.deepEqual(acks[10]?.seq_num_mismatch, { expected_seq_num: "10" });
    const seqs = acks.filter((a) => a?.appended).map((a) => a?.appended?.start?.seq_num);
    assert.deepEqual(
      seqs,
      Array.from({ length: 29 }, (_, i) => String(i)),
    );
    const read = await call(f.client, "Read", { bucket, key: "s", seq_num: "0" });
    assert.equal(read.records.length, 29);
    assert.equal(read.records[10]?.body.toString(), "b11");
  });

  test("an invalid batch ends the session after acking the batches before it", async () => {
    const bucket = await freshStream();
    const session = f.client.AppendSession();
    const { frames, ended } = collect(session);
    session.write({ open: { bucket, key: "s" } });
    session.write(batch("ok"));
    session.write({ batch: { records: [] } });
    session.write(batch("never"));
    const err = await ended;
    assert.equal(err?.code, status.INVALID_ARGUMENT);
    assert.equal(frames.filter((m) => m.ack).length, 1);
    const { tail } = await call(f.client, "CheckTail", { bucket, key: "s" });
    assert.equal(tail?.seq_num, "1", "nothing after the invalid batch was appended");
  });

  test("a batch past the record cap ends the session, refused as it is decoded", async () => {
    const bucket = await freshStream();
    const session = f.client.AppendSession();
    const { frames, ended } = collect(session);
    session.write({ open: { bucket, key: "s" } });
    session.write(batch("ok"));
    const records = Array.from({ length: MAX_BATCH_RECORDS + 1 }, () => ({
      body: Buffer.alloc(0),
    }));
    session.write({ batch: { records } });
    session.write(batch("never"));
    session.end();
    const err = await ended;
    assert.equal(err?.code, status.INVALID_ARGUMENT);
    assert.match(err?.details ?? "", /a batch holds at most 10000 records/);
    assert.equal(frames.filter((m) => m.ack).length, 1);
    const { tail } = await call(f.client, "CheckTail", { bucket, key: "s" });
    assert.equal(tail?.seq_num, "1", "nothing of the refused batch, or after it, was appended");
  });

  test("the window holds the star to at most that many batches in flight", async () => {
    // With a 2-batch window and a slow group commit, no commit can hold more than 2 batches;
    // without the window all 40 would be read at once and committed in a few log objects.
    const bucket = await freshStream({ batch_max_delay_ms: 60, batch_max_bytes: String(64 << 20) });
    const before = Number((await starStats(f.star.address)).log_objects_written);
    const session = f.client.AppendSession();
    const { frames, ended } = collect(session);
    session.write({ open: { bucket, key: "s" } });
    for (let i = 0; i < 40; i++) session.write(batch(`w${i}`));
    session.end();
    assert.equal(await ended, null);
    assert.equal(frames.filter((m) => m.ack?.appended).length, 40);
    const written = Number((await starStats(f.star.address)).log_objects_written) - before;
    assert.ok(written >= 20, `${written} log objects for 40 batches`);
  });

  test("the session cap answers RESOURCE_EXHAUSTED", async () => {
    const bucket = await freshStream();
    const open: Session[] = [];
    try {
      for (let i = 0; i < 4; i++) {
        const s = f.client.AppendSession();
        const { frames } = collect(s);
        s.write({ open: { bucket, key: "s" } });
        await waitFor(() => frames.length > 0, { timeoutMs: 10_000, message: "session opened" });
        open.push(s);
      }
      const extra = f.client.AppendSession();
      const { ended } = collect(extra);
      extra.write({ open: { bucket, key: "s" } });
      assert.equal((await ended)?.code, status.RESOURCE_EXHAUSTED);
    } finally {
      for (const s of open) s.end();
    }
  });

  test("a session quiet for --append-session-idle-ms ends UNAVAILABLE with nothing lost, freeing its slot", async () => {
    const quiet = await startStarFixture({ maxSessions: 1, sessionIdleMs: 300 });
    try {
      const bucket = uniqueBucket();
      await call(quiet.client, "CreateBucket", { name: bucket });
      await call(quiet.client, "CreateStream", { bucket, key: "s" });
      const session = quiet.client.AppendSession();
      const { frames, ended } = collect(session);
      session.write({ open: { bucket, key: "s" } });
      session.write(batch("kept"));
      // Bounded: a session never cut would hold the test.
      const err = await Promise.race([
        ended,
        new Promise<never>((_, reject) => {
          setTimeout(() => reject(new Error("the quiet session was never ended")), 10_000).unref();
        }),
      ]);
      assert.equal(err?.code, status.UNAVAILABLE);
      assert.match(err?.details ?? "", /--append-session-idle-ms/);
      assert.equal(frames[1]?.ack?.appended?.start?.seq_num, "0", "its batch was acked first");
      const read = await call(quiet.client, "Read", { bucket, key: "s", seq_num: "0" });
      assert.deepEqual(
        read.records.map((r) => r.body.toString()),
        ["kept"],
      );
      // The one slot is free again; a session that never opens is ended the same way.
      const silent = quiet.client.AppendSession();
      const silentEnd = collect(silent).ended;
      assert.equal((await silentEnd)?.code, status.UNAVAILABLE);
      const next = quiet.client.AppendSession();
      const opened = collect(next);
      next.write({ open: { bucket, key: "s" } });
      next.end();
      assert.equal(await opened.ended, null);
      assert.equal(opened.frames[0]?.frame, "opened");
    } finally {
      await quiet.close();
    }
  });

  test("a session whose open outlasts --append-session-idle-ms is not ended while it opens", async () => {
    // The stream's state is read slowly while the session opens: the idle time passes twice
    // over with the open frame in and the batch waiting behind the paused call.
    let slow = false;
    const quiet = await startStarFixture({ sessionIdleMs: 300 }, (store) =>
      withMethods(store, {
        getVersioned: async (key: string) => {
          if (slow && key.startsWith("state/")) await delay(900);
          return store.getVersioned(key);
        },
      }),
    );
    try {
      const bucket = uniqueBucket();
      await call(quiet.client, "CreateBucket", { name: bucket });
      await call(quiet.client, "CreateStream", { bucket, key: "s" });
      slow = true;
      const session = quiet.client.AppendSession();
      const { frames, ended } = collect(session);
      session.write({ open: { bucket, key: "s" } });
      session.write(batch("waited"));
      session.end();
      assert.equal(await ended, null);
      assert.deepEqual(
        frames.map((f) => f.frame),
        ["opened", "ack"],
      );
      assert.equal(frames[1]?.ack?.appended?.start?.seq_num, "0");
    } finally {
      await quiet.close();
    }
  });

  test("Fence supersedes a live session its new token does not admit", async () => {
    const bucket = await freshStream({ producer_policy: "PRODUCER_POLICY_FENCED" });
    await call(f.client, "Fence", { bucket, key: "s", fencing_token: "old" });
    const session = f.client.AppendSession();
    const { frames, ended } = collect(session);
    session.write({ open: { bucket, key: "s", fencing_token: "old" } });
    session.write(batch("a"));
    await waitFor(() => frames.some((m) => m.ack), { timeoutMs: 10_000, message: "first ack" });
    await call(f.client, "Fence", { bucket, key: "s", fencing_token: "new" });
    const err = await ended;
    assert.equal(err?.code, status.FAILED_PRECONDITION);
    assert.deepEqual(findDetail(err?.metadata, "FencingTokenMismatch"), { token_installed: true });
  });

  test("a stream that expires when idle is not idle while a session appends: no round deletes it", async () => {
    const bucket = await freshStream({ expire_idle_ms: "1000" });
    const session = f.client.AppendSession();
    const { frames, ended } = collect(session);
    session.write({ open: { bucket, key: "s" } });
    // Three times the idle window of batches, after the open (the only request the star sees
    // besides them), while rounds run every 200 ms.
    const start = Date.now();
    for (let i = 0; i < 12; i++) {
      await waitFor(() => Date.now() >= start + i * 250 || undefined, { message: "the next beat" });
      session.write(batch(`b${i}`));
      await waitFor(() => frames.length >= i + 2 || undefined, { message: `batch ${i} acked` });
    }
    session.end();
    assert.equal(await ended, null);
    const acks = frames.slice(1).map((m) => m.ack?.appended?.start?.seq_num);
    assert.deepEqual(
      acks,
      Array.from({ length: 12 }, (_, i) => String(i)),
    );
    const read = await call(f.client, "Read", { bucket, key: "s", seq_num: "0" });
    assert.equal(read.records.length, 12);
  });
});

describe("Subscribe", () => {
  function subscribe(request: Parameters<typeof f.client.Subscribe>[0]) {
    const stream = f.client.Subscribe(request);
    const messages: SubscribeResponse__Output[] = [];
    stream.on("data", (m: SubscribeResponse__Output) => messages.push(m));
    const ended = new Promise<ServiceError | null>((resolve) => {
      stream.on("error", (e: ServiceError) => resolve(e));
      stream.on("end", () => resolve(null));
    });
    const seqs = () => messages.flatMap((m) => m.records.map((r) => Number(r.seq_num)));
    return { stream, messages, ended, seqs };
  }

  test("from the middle of history hands over to live records with no gap and no duplicate", async () => {
    const bucket = await freshStream();
    for (let i = 0; i < 50; i++) {
      await call(f.client, "Append", {
        bucket,
        key: "s",
        records: [{ body: Buffer.from(`${i}`) }],
      });
    }
    const sub = subscribe({ bucket, key: "s", seq_num: "20" });
    const appends = (async () => {
      for (let i = 50; i < 100; i++) {
        await call(f.client, "Append", {
          bucket,
          key: "s",
          records: [{ body: Buffer.from(`${i}`) }],
        });
      }
    })();
    await appends;
    await waitFor(() => sub.seqs().length >= 80, { timeoutMs: 20_000, message: "80 records" });
    sub.stream.cancel();
    assert.deepEqual(
      sub.seqs(),
      Array.from({ length: 80 }, (_, i) => i + 20),
    );
    const heartbeat = sub.messages.find((m) => m.records.length === 0);
    assert.ok(heartbeat?.tail, "a heartbeat with the tail marks catching up");
  });

  test("from a timestamp, resolved by search", async () => {
    const bucket = await freshStream();
    const stamps = [1000, 2000, 3000, 4000];
    for (const t of stamps) {
      await call(f.client, "Append", {
        bucket,
        key: "s",
        records: [{ body: Buffer.from(`${t}`), timestamp_ms: String(t) }],
      });
    }
    const sub = subscribe({ bucket, key: "s", timestamp_ms: "2500" });
    await waitFor(() => sub.messages.some((m) => m.records.length === 0), {
      timeoutMs: 10_000,
      message: "caught up",
    });
    sub.stream.cancel();
    assert.deepEqual(sub.seqs(), [2, 3]);
  });

  test("a missing stream ends with NOT_FOUND", async () => {
    const sub = subscribe({ bucket: uniqueBucket(), key: "nope" });
    assert.equal((await sub.ended)?.code, status.NOT_FOUND);
  });
});
