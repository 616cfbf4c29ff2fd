import assert from "node:assert/strict";
import { getEventListeners } from "node:events";
import { test } from "node:test";
import { waitFor } from "../../../../test/harness/wait.ts";
import { HttpError } from "../../errors/index.ts";
import { FanoutTurns } from "../hubs/fanout-turns.ts";
import { feedChannel } from "../hubs/hub-fakes.test-helper.ts";
import { HubFollower, HubSubscriber, StreamHub } from "../hubs/stream-hub.ts";
import type { BatchSource } from "../sources/source.ts";
import { batch, caughtUp, FakeOut, FakeSource, rec } from "./sse-fakes.test-helper.ts";
import { multiplexed } from "./sse-forms.ts";
import {
  endLingering,
  type MultiplexOptions,
  type SseOutput,
  SseSession,
  type SseSessionOptions,
  type SseTiming,
} from "./sse-session.ts";

/** The session's stream to its end. */
function run(s: SseSession, out: SseOutput): Promise<void> {
  return new Promise((end) => s.stream(out, { end }));
}

const timing: SseTiming = {
  retryMs: () => 1000,
  drainRetryMs: () => 777,
  pingMs: () => 60_000,
  endLingerMs: 60_000,
};

/** What every session in these tests has in common. */
const common = (abort: AbortController) => ({
  format: "raw" as const,
  int64: "number" as const,
  slowConsumerMs: 60_000,
  signal: abort.signal,
  timing,
});

function session(src: FakeSource, over: Partial<SseSessionOptions> = {}) {
  const abort = new AbortController();
  const s = new SseSession({
    source: src.source,
    cursor: { start: { seq_num: "0" }, clamp: false },
    bounds: {},
    ...common(abort),
    ...over,
  });
  return { s, abort };
}

test("catch-up, the caught-up ping, then live batches with ids counting records and bytes", async () => {
  const src = new FakeSource();
  src.push(batch([0, 1, 2], 3), caughtUp(3));
  const { s, abort } = session(src);
  assert.equal(await s.start(), "stream");
  const out = new FakeOut();
  const running = run(s, out);
  await waitFor(() => out.events().length === 2);
  src.push(batch([3], 4));
  await waitFor(() => out.events().length === 3);
  assert.match(out.text, /^retry: 1000\n\n/);
  assert.deepEqual(
    out.events().map((e) => [e.event, e.id]),
    [
      ["batch", "2,3,3"],
      ["ping", undefined],
      ["batch", "3,4,4"],
    ],
  );
  assert.deepEqual(out.events()[1]?.data.tail, { seq_num: 3, timestamp_ms: 0 });
  abort.abort();
  out.destroy();
  await running;
  assert.equal(src.released, true);
});

test("a resumed session starts after its id and stops at the count across reconnects", async () => {
  const src = new FakeSource();
  src.push(batch([3, 4, 5], 6));
  const { s } = session(src, {
    resume: { seq_num: 2n, count: 3n, bytes: 3n },
    bounds: { count: 5n },
  });
  assert.equal(await s.start(), "stream");
  assert.deepEqual(src.cursor, { start: { seq_num: "3" }, clamp: false });
  const out = new FakeOut();
  await run(s, out);
  assert.deepEqual(
    out.events().map((e) => [e.event, e.id, e.data]),
    [
      [
        "batch",
        "4,5,5",
        {
          records: [
            { seq_num: 3, timestamp_ms: 3, headers: [], body: "x" },
            { seq_num: 4, timestamp_ms: 4, headers: [], body: "x" },
          ],
          tail: { seq_num: 6, timestamp_ms: 0 },
        },
      ],
      ["done", undefined, { next: { seq_num: 5, timestamp_ms: 4 } }],
    ],
  );
  assert.equal(out.writableFinished, true);
  assert.equal(src.released, true);
});

test("a resume whose bounds are met is 'met', before or after reading", async () => {
  const src = new FakeSource();
  const met = session(src, {
    resume: { seq_num: 9n, count: 5n, bytes: 0n },
    bounds: { count: 5n },
  });
  assert.equal(await met.s.start(), "met");
  assert.equal(src.cursor, undefined, "no upstream call");

  const until = new FakeSource();
  until.push(batch([10], 11));
  const u = session(until, {
    resume: { seq_num: 9n, count: 5n, bytes: 0n },
    bounds: { untilMs: 10n },
  });
  assert.equal(await u.s.start(), "met");
  assert.equal(until.released, true);
});

test("a stalled client gets slow_consumer with its resume id, and the source is released", async () => {
  const src = new FakeSource();
  src.push(batch([0], 1));
  let slow = 0;
  const { s } = session(src, { slowConsumerMs: 50, onSlowConsumer: () => slow++ });
  await s.start();
  const out = new FakeOut();
  out.stalled = true;
  const running = run(s, out);
  // More than the 64-byte buffer: the session must wait for a drain that does not come.
  src.push(batch([1], 2), batch([2], 3), batch([3], 4));
  await waitFor(() => slow === 1);
  assert.equal(src.released, true);
  out.unstall();
  await running;
  const events = out.events();
  const error = events.at(-1);
  assert.equal(error?.event, "error");
  assert.equal(error?.data.code, "slow_consumer");
  assert.equal(error?.data.retryable, true);
  const lastBatch = events.filter((e) => e.event === "batch").at(-1);
  assert.equal(error?.data.last_event_id, lastBatch?.id);
});

test("a running session lets the client's signal go: the response's close stops the sources", async () => {
  const src = new FakeSource();
  src.push(caughtUp(0));
  const { s, abort } = session(src);
  await s.start();
  // Until the response is there, the client's going away is told by its signal.
  assert.equal(getEventListeners(abort.signal, "abort").length, 1);
  const out = new FakeOut();
  const running = run(s, out);
  try {
    assert.equal(getEventListeners(abort.signal, "abort").length, 0);
    await waitFor(() => out.events().length === 1);
  } finally {
    out.destroy();
    await running;
  }
  assert.equal(src.released, true);
});

test("drain ends the stream with the drain retry", async () => {
  const src = new FakeSource();
  src.push(caughtUp(0));
  const { s } = session(src);
  await s.start();
  const out = new FakeOut();
  const running = run(s, out);
  await waitFor(() => out.events().length === 1);
  s.drain();
  await running;
  assert.match(out.text, /retry: 777\n\n$/);
  assert.equal(src.released, true);
});

test("a source failure mid-stream is an error event naming the resume id", async () => {
  const src = new FakeSource();
  src.push(batch([0, 1], 2));
  const { s } = session(src);
  await s.start();
  const out = new FakeOut();
  const running = run(s, out);
  src.push(Object.assign(new Error("boom")));
  await running;
  const error = out.events().at(-1);
  assert.equal(error?.event, "error");
  assert.equal(error?.data.code, "internal");
  assert.equal(error?.data.last_event_id, "1,2,2");
});

test("wait ends a caught-up session that got no record for that long", async () => {
  const src = new FakeSource();
  src.push(batch([0], 1), caughtUp(1));
  const { s } = session(src, { waitMs: 30 });
  await s.start();
  const out = new FakeOut();
  await run(s, out);
  assert.deepEqual(
    out.events().map((e) => e.event),
    ["batch", "ping", "done"],
  );
  assert.deepEqual(out.events()[2]?.data, { next: { seq_num: 1, timestamp_ms: 0 } });
});

test("upstream heartbeats that send nothing never push the next ping back", async () => {
  const src = new FakeSource();
  src.push(caughtUp(5));
  const { s, abort } = session(src, { timing: { ...timing, pingMs: () => 150 } });
  await s.start();
  const out = new FakeOut();
  const running = run(s, out);
  // The star's heartbeats (caught up, no records) come far more often than the ping interval.
  const heartbeats = setInterval(() => src.push(caughtUp(5)), 20);
  try {
    await waitFor(() => out.events().length >= 4, { message: "three idle pings among heartbeats" });
  } finally {
    clearInterval(heartbeats);
  }
  assert.ok(out.events().every((e) => e.event === "ping"));
  abort.abort();
  out.destroy();
  await running;
});

test("idle pings follow the timing", async () => {
  const src = new FakeSource();
  src.push(caughtUp(5));
  const { s, abort } = session(src, { timing: { ...timing, pingMs: () => 10 } });
  await s.start();
  const out = new FakeOut();
  const running = run(s, out);
  await waitFor(() => out.events().length >= 3);
  assert.ok(out.events().every((e) => e.event === "ping"));
  abort.abort();
  out.destroy();
  await running;
});

test("raw text that is not UTF-8 fails before the first byte, or after the records before it", async () => {
  const bad = { ...rec(1), body: Buffer.from([0xff]) };
  const first = new FakeSource();
  first.push({ records: [bad], tail: null });
  await assert.rejects(session(first).s.start(), (e: { code?: string }) => e.code === "not_utf8");
  assert.equal(first.released, true);

  const later = new FakeSource();
  later.push({ records: [rec(0), bad, rec(2)], tail: null });
  const { s } = session(later);
  assert.equal(await s.start(), "stream");
  const out = new FakeOut();
  await run(s, out);
  const events = out.events();
  assert.deepEqual(
    events.map((e) => [e.event, e.id]),
    [
      ["batch", "0,1,1"],
      ["error", undefined],
    ],
  );
  assert.equal(events[1]?.data.code, "not_utf8");
  assert.equal(events[1]?.data.seq_num, 1);
});

function multiplexedSession(sources: FakeSource[], over: Partial<MultiplexOptions> = {}) {
  const abort = new AbortController();
  const names = sources.map((_, i) => `b/s${i}`);
  const s = new SseSession({
    streams: sources.map((src) => ({
      source: src.source,
      cursor: { start: { seq_num: "0" }, clamp: false },
      bounds: {},
    })),
    form: multiplexed(names),
    ...common(abort),
    ...over,
  });
  return { s, abort };
}

test("multiplexed: batches name their stream, every id holds every stream's position, one ping with every tail", async () => {
  const a = new FakeSource();
  const b = new FakeSource();
  a.push(batch([0, 1], 2), caughtUp(2));
  b.push(caughtUp(7));
  const { s, abort } = multiplexedSession([a, b]);
  assert.equal(await s.start(), "stream");
  const out = new FakeOut();
  const running = run(s, out);
  // b caught up at the start, a right after its history: then one ping, for both.
  await waitFor(() => out.events().length === 2);
  b.push(batch([7], 8));
  await waitFor(() => out.events().length === 3);
  a.push(batch([2], 3));
  await waitFor(() => out.events().length === 4);
  const events = out.events();
  assert.deepEqual(
    events.map((e) => [e.event, e.id, e.data.stream]),
    [
      ["batch", "0:2,2,2;1:7,0,0", "b/s0"],
      ["ping", "0:2,2,2;1:7,0,0", undefined],
      ["batch", "0:2,2,2;1:8,1,1", "b/s1"],
      ["batch", "0:3,3,3;1:8,1,1", "b/s0"],
    ],
  );
  assert.deepEqual(events[1]?.data.tails, {
    "b/s0": { seq_num: 2, timestamp_ms: 0 },
    "b/s1": { seq_num: 7, timestamp_ms: 0 },
  });
  assert.deepEqual(events[2]?.data.records, [
    { seq_num: 7, timestamp_ms: 7, headers: [], body: "x" },
  ]);
  abort.abort();
  out.destroy();
  await running;
  assert.equal(a.released && b.released, true);
});

test("multiplexed: a resume starts each stream at its own position, and a stream whose count was met is not read", async () => {
  const a = new FakeSource();
  const b = new FakeSource();
  const c = new FakeSource();
  a.push(batch([5], 6), caughtUp(6));
  c.push(caughtUp(0));
  const { s, abort } = multiplexedSession([a, b, c], {
    streams: [a, b, c].map((src, i) => ({
      source: src.source,
      cursor: { start: { seq_num: "0" }, clamp: false },
      bounds: i === 1 ? { count: 2n } : {},
      resume: [
        { next: 5n, count: 5n, bytes: 5n },
        { next: 9n, count: 2n, bytes: 2n },
        { next: 0n, count: 0n, bytes: 0n },
      ][i] as { next: bigint; count: bigint; bytes: bigint },
    })),
  });
  assert.equal(await s.start(), "stream");
  assert.deepEqual(a.cursor, { start: { seq_num: "5" }, clamp: false });
  assert.equal(b.cursor, undefined, "a met stream opens no upstream call");
  assert.deepEqual(c.cursor, { start: { seq_num: "0" }, clamp: false });
  const out = new FakeOut();
  const running = run(s, out);
  await waitFor(() => out.events().length === 2);
  assert.deepEqual(
    out.events().map((e) => [e.event, e.id]),
    [
      ["batch", "0:6,6,6;1:9,2,2;2:0,0,0"],
      ["ping", "0:6,6,6;1:9,2,2;2:0,0,0"],
    ],
  );
  abort.abort();
  out.destroy();
  await running;
});

test("multiplexed: each stream's done names it; the response ends when every stream is done, and 204 on resume", async () => {
  const a = new FakeSource();
  const b = new FakeSource();
  a.push(batch([0, 1, 2], 3));
  b.push(caughtUp(0));
  const streams = (resume?: { next: bigint; count: bigint; bytes: bigint }[]) =>
    [a, b].map((src, i) => ({
      source: src.source,
      cursor: { start: { seq_num: "0" }, clamp: false },
      bounds: { count: 2n },
      ...(resume ? { resume: resume[i] as { next: bigint; count: bigint; bytes: bigint } } : {}),
    }));
  const { s } = multiplexedSession([a, b], { streams: streams() });
  await s.start();
  const out = new FakeOut();
  const running = run(s, out);
  await waitFor(() => out.events().length === 3);
  assert.equal(out.writableFinished, false, "b is not done yet");
  b.push(batch([0, 1], 2));
  await running;
  const events = out.events();
  assert.deepEqual(
    events.map((e) => [e.event, e.data.stream]),
    [
      ["batch", "b/s0"],
      ["done", "b/s0"],
      ["ping", undefined],
      ["batch", "b/s1"],
      ["done", "b/s1"],
    ],
  );
  assert.deepEqual(events[1]?.data, { stream: "b/s0", next: { seq_num: 2, timestamp_ms: 1 } });
  assert.equal(out.writableFinished, true);
  const last = events.filter((e) => e.event === "batch").at(-1)?.id as string;
  assert.equal(last, "0:2,2,2;1:2,2,2");
  const again = multiplexedSession([a, b], {
    streams: streams([
      { next: 2n, count: 2n, bytes: 2n },
      { next: 2n, count: 2n, bytes: 2n },
    ]),
  });
  assert.equal(await again.s.start(), "met");
});

test("multiplexed: the caught-up ping goes out when the last stream still catching up ends", async () => {
  const a = new FakeSource();
  const b = new FakeSource();
  a.push(batch([0, 1], 2));
  b.push(caughtUp(0));
  const { s, abort } = multiplexedSession([a, b], {
    streams: [a, b].map((src, i) => ({
      source: src.source,
      cursor: { start: { seq_num: "0" }, clamp: false },
      bounds: i === 0 ? { count: 3n } : {},
    })),
  });
  await s.start();
  const out = new FakeOut();
  const running = run(s, out);
  // a meets its count inside its history, never caught up: b, the one left, is.
  a.push(batch([2, 3], 4));
  await waitFor(() => out.events().length === 4);
  assert.deepEqual(
    out.events().map((e) => [e.event, e.data.stream]),
    [
      ["batch", "b/s0"],
      ["batch", "b/s0"],
      ["done", "b/s0"],
      ["ping", undefined],
    ],
  );
  abort.abort();
  out.destroy();
  await running;
});

test("multiplexed: one stream's failure ends the response naming it, with the id that resumes all", async () => {
  const a = new FakeSource();
  const b = new FakeSource();
  a.push(batch([0], 1));
  b.push(caughtUp(4));
  const { s } = multiplexedSession([a, b]);
  await s.start();
  const out = new FakeOut();
  const running = run(s, out);
  b.push(new Error("boom"));
  await running;
  const error = out.events().at(-1);
  assert.equal(error?.event, "error");
  assert.equal(error?.data.stream, "b/s1");
  assert.match(error?.data.message, /^b\/s1: /);
  assert.equal(error?.data.last_event_id, "0:1,1,1;1:4,0,0");
  assert.equal(a.released, true);
});

test("multiplexed: a failure before the first byte is the request's error, naming the stream", async () => {
  const a = new FakeSource();
  const b = new FakeSource();
  a.push(caughtUp(0));
  b.push(new HttpError(404, "stream_not_found", "no such stream"));
  const { s } = multiplexedSession([a, b]);
  await assert.rejects(s.start(), (e: HttpError) => {
    assert.equal(e.status, 404);
    assert.equal(e.fields.stream, "b/s1");
    assert.equal(e.message, "b/s1: no such stream");
    return true;
  });
  assert.equal(a.released && b.released, true);
});

test("multiplexed: a stream that always has a batch ready cannot starve another", async () => {
  const busy = new FakeSource();
  const quiet = new FakeSource();
  busy.push(caughtUp(0));
  quiet.push(caughtUp(0));
  const { s, abort } = multiplexedSession([busy, quiet]);
  await s.start();
  const out = new FakeOut();
  const running = run(s, out);
  for (let i = 0; i < 50; i++) busy.push(batch([i], i + 1));
  quiet.push(batch([0], 1));
  await waitFor(() => out.events().some((e) => e.data?.stream === "b/s1"));
  const order = out
    .events()
    .filter((e) => e.event === "batch")
    .map((e) => e.data.stream);
  assert.ok(order.indexOf("b/s1") <= 2, `the quiet stream came at ${order.indexOf("b/s1")}`);
  abort.abort();
  out.destroy();
  await running;
});

/**
 * A session reading a live hub from its head; `pulls` counts the reads through its loop.
 * `behind`: the hub serves one reader a turn, and another one, taking every batch, waits first.
 */
async function hubSession(over: Partial<SseSessionOptions> = {}, behind = false) {
  const { feed, send } = feedChannel();
  const hub = new StreamHub(
    feed,
    { maxBatches: 64, maxBytes: 1 << 20, turns: new FanoutTurns(behind ? 1 : 256) },
    new HubSubscriber(undefined),
    () => {},
  );
  send(caughtUp(0));
  await hub.ready;
  if (behind) {
    const ahead = new HubFollower(undefined).follow(hub, hub.next, new AbortController().signal, {
      deliver: (b) => b.length,
    });
    await ahead.next();
    ahead.next().catch(() => {});
  }
  const counter = { pulls: 0 };
  const source: BatchSource = (_cursor, signal, tap) => ({
    [Symbol.asyncIterator]: () => {
      const it = new HubFollower(undefined).follow(hub, hub.next, signal, tap);
      return {
        next: () => {
          counter.pulls++;
          return it.next();
        },
        return: () => it.return(),
      };
    },
  });
  const abort = new AbortController();
  const s = new SseSession({
    source,
    cursor: { start: {}, clamp: false },
    bounds: {},
    ...common(abort),
    ...over,
  });
  assert.equal(await s.start(), "stream");
  return { s, abort, send, hub, counter };
}

test("live hub batches are written in the hub's turn, not through the session's loop", async () => {
  const { s, abort, send, hub, counter } = await hubSession();
  const out = new FakeOut();
  out.setMaxListeners(0);
  const running = run(s, out);
  await waitFor(() => out.events().length === 1 && counter.pulls === 2);
  send(batch([0, 1], 2), batch([2], 3));
  await waitFor(() => out.events().length === 3);
  assert.deepEqual(
    out.events().map((e) => [e.event, e.id, e.data.records?.length]),
    [
      ["ping", undefined, undefined],
      ["batch", "1,2,2", 2],
      ["batch", "2,3,3", 1],
    ],
  );
  assert.equal(counter.pulls, 2, "the session's own read still waits");
  abort.abort();
  out.destroy();
  await running;
  hub.close();
});

test("batches a late fan-out hands over together are written at once, each its own event", async () => {
  const { s, abort, send, hub, counter } = await hubSession({}, true);
  const out = new FakeOut();
  let writes = 0;
  const write = out._write.bind(out);
  out._write = (chunk, enc, cb) => {
    writes++;
    write(chunk, enc, cb);
  };
  const running = run(s, out);
  try {
    await waitFor(() => out.events().length === 1 && counter.pulls === 2);
    const before = writes;
    // The reader ahead takes [0] in the feed's turn; the session's turn comes after all three.
    send(batch([0], 1), batch([1, 2], 3), batch([3], 4));
    await waitFor(() => out.events().length === 4);
    assert.deepEqual(
      out.events().map((e) => [e.event, e.id, e.data.records?.length]),
      [
        ["ping", undefined, undefined],
        ["batch", "0,1,1", 1],
        ["batch", "2,3,3", 2],
        ["batch", "3,4,4", 1],
      ],
    );
    assert.equal(writes - before, 1, "one write for the three events");
    assert.equal(counter.pulls, 2, "the session's own read still waits");
  } finally {
    abort.abort();
    out.destroy();
    await running;
    hub.close();
  }
});

test("a hub batch that meets the count, or meets a stalled client, takes the loop; then the fast path again", async () => {
  const bounded = await hubSession({ bounds: { count: 3n } });
  const out = new FakeOut();
  const running = run(bounded.s, out);
  await waitFor(() => out.events().length === 1);
  bounded.send(batch([0, 1], 2), batch([2, 3], 4));
  await running;
  assert.deepEqual(
    out.events().map((e) => [e.event, e.id]),
    [
      ["ping", undefined],
      ["batch", "1,2,2"],
      ["batch", "2,3,3"],
      ["done", undefined],
    ],
  );
  bounded.hub.close();

  const { s, abort, send, hub, counter } = await hubSession();
  const stalled = new FakeOut();
  const going = run(s, stalled);
  await waitFor(() => stalled.events().length === 1);
  stalled.stalled = true;
  send(batch([0], 1));
  await waitFor(() => stalled.writableNeedDrain);
  const pulls = counter.pulls;
  send(batch([1], 2));
  await waitFor(() => stalled.writableLength > 0, { message: "the refused batch, by the loop" });
  stalled.unstall();
  await waitFor(() => stalled.events().length === 3);
  // After the drain the loop reads on: the head's mark, then it waits at the head again.
  await waitFor(() => counter.pulls === pulls + 2);
  send(batch([2], 3), batch([3], 4));
  await waitFor(() => stalled.events().length === 5);
  assert.deepEqual(
    stalled.events().map((e) => e.id),
    [undefined, "0,1,1", "1,2,2", "2,3,3", "3,4,4"],
  );
  assert.equal(counter.pulls, pulls + 2, "back on the fast path once it waits at the head");
  abort.abort();
  stalled.destroy();
  await going;
  hub.close();
});

test("an ended response its client does not read keeps its socket for endLingerMs, then not", async () => {
  const stalled = new FakeOut();
  stalled.stalled = true;
  stalled.write("event: ping\ndata: {}\n\n");
  endLingering(stalled, 50);
  assert.equal(stalled.destroyed, false, "still there for the client to read its end");
  await waitFor(() => stalled.destroyed, { message: "the unread response destroyed" });
  const read = new FakeOut();
  endLingering(read, 50);
  await waitFor(() => read.writableFinished, { message: "a read response ends" });
});
