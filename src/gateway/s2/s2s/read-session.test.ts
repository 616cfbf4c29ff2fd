import assert from "node:assert/strict";
import { test } from "node:test";
import type { Position__Output } from "../../../gen/nova/v1/Position.ts";
import type { Record__Output } from "../../../gen/nova/v1/Record.ts";
import { type SourceBatch, SourceRead } from "../../sessions/index.ts";
import { S2_MAX_BATCH_RECORDS } from "../metering.ts";
import { FakeOutput } from "./frame-output.test-helper.ts";
import { FrameWriter } from "./frame-output.ts";
import { type S2sReadOptions, S2sReadSession } from "./read-session.ts";

type Batch = SourceBatch;

/** A source fed by the test: push batches, or fail it; stopped once its iterator is returned. */
class Feed implements AsyncIterableIterator<Batch> {
  #queue: (Batch | Error)[] = [];
  #waiting: ((b: Batch | Error) => void) | undefined;
  stopped = false;

  push(b: Batch | Error): void {
    const w = this.#waiting;
    this.#waiting = undefined;
    if (w) w(b);
    else this.#queue.push(b);
  }

  async next(): Promise<IteratorResult<Batch>> {
    const b = this.#queue.shift() ?? (await new Promise<Batch | Error>((r) => (this.#waiting = r)));
    if (b instanceof Error) throw b;
    return { done: false, value: b };
  }

  async return(): Promise<IteratorResult<Batch>> {
    this.stopped = true;
    return { done: true, value: undefined };
  }

  [Symbol.asyncIterator](): this {
    return this;
  }
}

/** `n` records from `from`, each of `size` body bytes (metered: 8 more). */
const recs = (from: number, n: number, size = 2): Record__Output[] =>
  Array.from({ length: n }, (_, i) => ({
    seq_num: String(from + i),
    timestamp_ms: String(from + i),
    body: Buffer.alloc(size),
    headers: [],
  }));

const at = (seq: number): Position__Output => ({ seq_num: String(seq), timestamp_ms: "0" });

function session(feed: Feed, opts: Partial<S2sReadOptions> = {}) {
  const out = new FakeOutput();
  const cursor = { start: { seq_num: "0" }, clamp: false };
  const s = new S2sReadSession({
    read: new SourceRead(
      () => feed,
      cursor,
      new AbortController().signal,
      "the test's session ended",
    ),
    bounds: {},
    idleEndMs: undefined,
    heartbeatMs: { min: 10, max: 20 },
    encodeBatch: (records, tail) =>
      new TextEncoder().encode(`${records.map((r) => r.seq_num).join(",")}|${tail?.seq_num}`),
    terminal: (err) => ({
      status: 500,
      body: new TextEncoder().encode(JSON.stringify({ code: (err as Error).message })),
    }),
    draining: () => ({ status: 503, body: new TextEncoder().encode('{"code":"server_draining"}') }),
    ...opts,
  });
  return { s, out, writer: new FrameWriter(out, "none", 1_000) };
}

/** Resolves once `out` holds a frame that `pred` accepts, or fails after a deadline. */
function frameWhere(out: FakeOutput, pred: (m: string[]) => boolean): Promise<void> {
  return new Promise((resolve, reject) => {
    const check = () => {
      if (!pred(out.messages())) return;
      clearTimeout(t);
      out.off("wrote", check);
      resolve();
    };
    const t = setTimeout(() => reject(new Error(`no such frame in ${out.messages()}`)), 5_000);
    out.on("wrote", check);
    check();
  });
}

test("a count bound ends the response cleanly at the last record, and stops the source", async () => {
  const feed = new Feed();
  feed.push({ records: recs(0, 3), tail: at(3) });
  feed.push({ records: recs(3, 3), tail: at(6) });
  const { s, out, writer } = session(feed, { bounds: { count: 4n } });
  await s.start();
  await s.run(writer);
  assert.deepEqual(out.messages(), ["0,1,2|3", "3|6"]);
  assert.equal(out.terminal(), undefined);
  assert.equal(out.ended, true);
  assert.equal(feed.stopped, true);
});

test("a bytes bound counts S2's metering, strictly: a record past it is not delivered", async () => {
  // Each record meters 8 + 2 = 10 bytes.
  const feed = new Feed();
  feed.push({ records: recs(0, 5), tail: at(5) });
  const { s, out, writer } = session(feed, { bounds: { bytes: 25n } });
  await s.start();
  await s.run(writer);
  assert.deepEqual(out.messages(), ["0,1|5"]);
  assert.equal(out.terminal(), undefined);
  const one = new Feed();
  one.push({ records: recs(0, 2), tail: at(2) });
  const small = session(one, { bounds: { bytes: 9n } });
  await small.s.start();
  await small.s.run(small.writer);
  assert.deepEqual(small.out.messages(), []);
  assert.equal(small.out.ended, true);
});

test("frames hold at most 1 MiB metered", async () => {
  const feed = new Feed();
  // Three records of 400 KiB: two fit a frame, the third goes in the next.
  feed.push({ records: recs(0, 3, 400 * 1024), tail: at(3) });
  const { s, out, writer } = session(feed, { bounds: { count: 3n } });
  await s.start();
  await s.run(writer);
  assert.deepEqual(out.messages(), ["0,1|3", "2|3"]);
});

test("a batch past S2's 1000 records goes as several frames", async () => {
  const feed = new Feed();
  feed.push({ records: recs(0, S2_MAX_BATCH_RECORDS + 1), tail: at(1001) });
  const { s, out, writer } = session(feed, { bounds: { count: 1001n } });
  await s.start();
  await s.run(writer);
  assert.equal(out.messages().length, 2);
  assert.equal(out.messages()[1], "1000|1001");
});

test("caught up with wait 0, the session ends; with a wait, after it", async () => {
  for (const waitMs of [0, 30]) {
    const feed = new Feed();
    feed.push({ records: recs(0, 2), tail: at(2) });
    feed.push({ records: [], tail: at(2) });
    const { s, out, writer } = session(feed, {
      idleEndMs: waitMs,
      heartbeatMs: { min: 5_000, max: 5_000 },
    });
    await s.start();
    await s.run(writer);
    assert.deepEqual(out.messages(), ["0,1|2", "|2"]);
    assert.equal(out.terminal(), undefined);
  }
});

test("following, heartbeats carry the tail until records come", async () => {
  const feed = new Feed();
  feed.push({ records: [], tail: at(7) });
  const { s, out, writer } = session(feed);
  await s.start();
  const running = s.run(writer);
  await frameWhere(out, (m) => m.filter((x) => x === "|7").length >= 3);
  feed.push({ records: recs(7, 1), tail: at(8) });
  await frameWhere(out, (m) => m.includes("7|8"));
  s.drain();
  await running;
  assert.deepEqual(out.terminal(), { status: 503, body: { code: "server_draining" } });
  assert.equal(feed.stopped, true);
});

test("a failure before the first batch is thrown; after it, a terminal frame", async () => {
  const early = new Feed();
  early.push(new Error("stream_not_found"));
  const a = session(early);
  await assert.rejects(a.s.start(), /stream_not_found/);
  assert.equal(early.stopped, true);
  const late = new Feed();
  late.push({ records: recs(0, 1), tail: at(1) });
  late.push(new Error("unavailable"));
  const b = session(late);
  await b.s.start();
  await b.s.run(b.writer);
  assert.deepEqual(b.out.messages(), ["0|1"]);
  assert.deepEqual(b.out.terminal(), { status: 500, body: { code: "unavailable" } });
});

test("a client gone mid-session stops the source", async () => {
  const feed = new Feed();
  feed.push({ records: [], tail: at(0) });
  const { s, out, writer } = session(feed, { heartbeatMs: { min: 60_000, max: 60_000 } });
  await s.start();
  const running = s.run(writer);
  await frameWhere(out, (m) => m.length >= 1);
  // Long before the next heartbeat would show the client gone.
  out.destroy();
  await running;
  assert.equal(feed.stopped, true);
});
