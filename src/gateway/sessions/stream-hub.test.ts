import assert from "node:assert/strict";
import { test } from "node:test";
import type { Record__Output } from "../../gen/nova/v1/Record.ts";
import type { Cursor, SourceBatch } from "./source.ts";
import { type HubFeed, HubSubscriber, StreamHub } from "./stream-hub.ts";

const batch = (seqs: number[]): SourceBatch => ({
  records: seqs.map(
    (s): Record__Output => ({
      seq_num: String(s),
      timestamp_ms: "0",
      headers: [],
      body: Buffer.from(`r${s}`),
    }),
  ),
  tail: { seq_num: String((seqs.at(-1) ?? -1) + 1), timestamp_ms: "0" },
});

/** A feed that yields the given frames, then waits until the hub closes it. */
function scripted(frames: SourceBatch[], cursors: Cursor[] = []): HubFeed {
  return async function* (cursor, signal) {
    cursors.push(cursor);
    for (const f of frames) yield f;
    await new Promise((resolve) => signal.addEventListener("abort", resolve, { once: true }));
  };
}

async function collect(hub: StreamHub, from: bigint, until: number) {
  const stop = new AbortController();
  const it = hub.follow(new HubSubscriber(undefined), from, stop.signal);
  const seqs: number[] = [];
  for (;;) {
    const step = await it.next();
    if (step.done) return { seqs, left: step.value };
    for (const r of step.value.records) seqs.push(Number(r.seq_num));
    if ((seqs.at(-1) ?? -1) >= until) {
      stop.abort();
      await it.return(0n);
      return { seqs, left: undefined };
    }
  }
}

const ring = { maxBatches: 8, maxBytes: 1 << 20 };

test("the feed starts at the tail; frames that overlap what the hub holds are not repeated", async () => {
  const cursors: Cursor[] = [];
  const feed = scripted(
    [batch([]), batch([0, 1]), batch([1, 2, 3]), batch([2, 3]), batch([4])],
    cursors,
  );
  const hub = new StreamHub(feed, ring, new HubSubscriber(undefined), () => {});
  await hub.ready;
  assert.deepEqual(cursors, [{ start: {}, clamp: false }]);
  assert.deepEqual((await collect(hub, 0n, 4)).seqs, [0, 1, 2, 3, 4]);
  hub.close();
});

test("a gap in the feed (a trim while it re-subscribed) starts the window again; a reader below it leaves", async () => {
  const hub = new StreamHub(
    scripted([batch([0, 1]), batch([5, 6])]),
    ring,
    new HubSubscriber(undefined),
    () => {},
  );
  await hub.ready;
  const { seqs, left } = await collect(hub, 0n, 6);
  assert.deepEqual(seqs, [0, 1]);
  assert.equal(left, 2n, "the reader leaves at its cursor, to catch up on its own");
  assert.ok(hub.contains(5n) && !hub.contains(4n));
  assert.deepEqual((await collect(hub, 5n, 6)).seqs, [5, 6]);
  hub.close();
});

test("a feed that fails ends the hub: ready rejects, followers get the error, the registry is told", async () => {
  let ended = false;
  const failing: HubFeed = async function* () {
    yield* [];
    throw new Error("stream deleted");
  };
  const hub = new StreamHub(failing, ring, new HubSubscriber(undefined), () => {
    ended = true;
  });
  await assert.rejects(hub.ready, /stream deleted/);
  assert.ok(ended && hub.ended);
  await assert.rejects(collect(hub, 0n, 0), /stream deleted/);
});
