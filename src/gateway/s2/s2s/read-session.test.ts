import assert from "node:assert/strict";
import { test } from "node:test";
import { S2_MAX_BATCH_RECORDS } from "../metering.ts";
import { FakeOutput } from "./frame-output.test-helper.ts";
import { FrameWriter } from "./frame-output.ts";
import { type ReadSourceBatch, type S2sReadOptions, S2sReadSession } from "./read-session.ts";

interface Rec {
  seq_num: number;
  timestamp_ms: string;
}
type Batch = ReadSourceBatch<Rec, number>;

/** A source fed by the test: push batches, or fail it. */
class Feed implements AsyncIterator<Batch> {
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
}

const recs = (from: number, n: number): Rec[] =>
  Array.from({ length: n }, (_, i) => ({ seq_num: from + i, timestamp_ms: String(from + i) }));

function session(feed: Feed, opts: Partial<S2sReadOptions<Rec, number>> = {}) {
  const out = new FakeOutput();
  const s = new S2sReadSession<Rec, number>({
    batches: feed,
    bounds: {},
    meteredBytes: () => 10,
    waitMs: undefined,
    heartbeatMs: { min: 10, max: 20 },
    encodeBatch: (records, tail) =>
      new TextEncoder().encode(`${records.map((r) => r.seq_num).join(",")}|${tail}`),
    terminal: (err) => ({
      status: 500,
      body: new TextEncoder().encode(JSON.stringify({ code: (err as Error).message })),
    }),
    draining: () => ({ status: 503, body: new TextEncoder().encode('{"code":"server_draining"}') }),
    stop: () => {
      feed.stopped = true;
    },
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
  feed.push({ records: recs(0, 3), tail: 3 });
  feed.push({ records: recs(3, 3), tail: 6 });
  const { s, out, writer } = session(feed, { bounds: { count: 4n } });
  await s.start();
  await s.run(writer);
  assert.deepEqual(out.messages(), ["0,1,2|3", "3|6"]);
  assert.equal(out.terminal(), undefined);
  assert.equal(out.ended, true);
  assert.equal(feed.stopped, true);
});

test("a bytes bound counts S2's metering; the first record goes even past it", async () => {
  const feed = new Feed();
  feed.push({ records: recs(0, 5), tail: 5 });
  const { s, out, writer } = session(feed, { bounds: { bytes: 25n }, meteredBytes: () => 10 });
  await s.start();
  await s.run(writer);
  assert.deepEqual(out.messages(), ["0,1|5"]);
  const one = new Feed();
  one.push({ records: recs(0, 2), tail: 2 });
  const small = session(one, { bounds: { bytes: 1n } });
  await small.s.start();
  await small.s.run(small.writer);
  assert.deepEqual(small.out.messages(), ["0|2"]);
});

test("a batch past S2's 1000 records goes as several frames", async () => {
  const feed = new Feed();
  feed.push({ records: recs(0, S2_MAX_BATCH_RECORDS + 1), tail: 1001 });
  const { s, out, writer } = session(feed, { bounds: { count: 1001n } });
  await s.start();
  await s.run(writer);
  assert.equal(out.messages().length, 2);
  assert.equal(out.messages()[1], "1000|1001");
});

test("caught up with wait 0, the session ends; with a wait, after it", async () => {
  for (const waitMs of [0, 30]) {
    const feed = new Feed();
    feed.push({ records: recs(0, 2), tail: 2 });
    feed.push({ records: [], tail: 2 });
    const { s, out, writer } = session(feed, { waitMs, heartbeatMs: { min: 5_000, max: 5_000 } });
    await s.start();
    await s.run(writer);
    assert.deepEqual(out.messages(), ["0,1|2", "|2"]);
    assert.equal(out.terminal(), undefined);
  }
});

test("following, heartbeats carry the tail until records come", async () => {
  const feed = new Feed();
  feed.push({ records: [], tail: 7 });
  const { s, out, writer } = session(feed);
  await s.start();
  const running = s.run(writer);
  await frameWhere(out, (m) => m.filter((x) => x === "|7").length >= 3);
  feed.push({ records: recs(7, 1), tail: 8 });
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
  late.push({ records: recs(0, 1), tail: 1 });
  late.push(new Error("unavailable"));
  const b = session(late);
  await b.s.start();
  await b.s.run(b.writer);
  assert.deepEqual(b.out.messages(), ["0|1"]);
  assert.deepEqual(b.out.terminal(), { status: 500, body: { code: "unavailable" } });
});

test("a client gone mid-session stops the source", async () => {
  const feed = new Feed();
  feed.push({ records: [], tail: 0 });
  const { s, out, writer } = session(feed, { heartbeatMs: { min: 60_000, max: 60_000 } });
  await s.start();
  const running = s.run(writer);
  await frameWhere(out, (m) => m.length >= 1);
  // Long before the next heartbeat would show the client gone.
  out.destroy();
  await running;
  assert.equal(feed.stopped, true);
});
