import assert from "node:assert/strict";
import { test } from "node:test";
import { waitFor } from "../../../../test/harness/wait.ts";
import type { Record__Output } from "../../../gen/nova/v1/Record.ts";
import type { BatchTap, Cursor, SourceBatch } from "../sources/source.ts";
import { FanoutTurns } from "./fanout-turns.ts";
import { feedChannel } from "./hub-fakes.test-helper.ts";
import { type HubFeed, HubFollower, HubSubscriber, StreamHub } from "./stream-hub.ts";

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
  const it = new HubFollower(undefined).follow(hub, from, stop.signal);
  const seqs: number[] = [];
  for (;;) {
    const step = await it.next();
    if (step.done) return { seqs, left: step.value };
    for (const r of step.value.records) seqs.push(Number(r.seq_num));
    if ((seqs.at(-1) ?? -1) >= until) {
      stop.abort();
      await it.return();
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

/**
 * A follower at the head with a tap that takes batches while `take` says yes, one at a time;
 * `next` is its pending read, `settled` once it resolves.
 */
async function tapped(hub: StreamHub, take: (b: SourceBatch) => boolean) {
  const tap: BatchTap = {
    deliver: (batches) => {
      let taken = 0;
      while (taken < batches.length && take(batches[taken] as SourceBatch)) taken++;
      return taken;
    },
  };
  return listTapped(hub, tap);
}

/** A follower at the head with a tap given every pending batch at once. */
async function listTapped(hub: StreamHub, tap: BatchTap) {
  const stop = new AbortController();
  const it = new HubFollower(undefined).follow(hub, hub.next, stop.signal, tap);
  const first = await it.next();
  assert.deepEqual(first.done ? undefined : first.value.records, [], "the head's mark first");
  const state = { settled: false };
  const next = it.next().then((step) => {
    state.settled = true;
    return step;
  });
  return { it, next, state, stop };
}

const seqsOf = (b: SourceBatch) => b.records.map((r) => Number(r.seq_num));

test("a reader waiting at the head takes new batches through its tap, its own read still waiting", async () => {
  const { feed, send } = feedChannel();
  const hub = new StreamHub(feed, ring, new HubSubscriber(undefined), () => {});
  send(batch([]));
  await hub.ready;
  const got: number[][] = [];
  const r = await tapped(hub, (b) => {
    got.push(seqsOf(b));
    return true;
  });
  send(batch([0, 1]), batch([2]));
  await waitFor(() => got.length === 2);
  assert.deepEqual(got, [[0, 1], [2]]);
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(r.state.settled, false, "nothing went through the reader's own path");
  r.stop.abort();
  await assert.rejects(r.next);
  hub.close();
});

test("a tap that refuses (or throws) wakes its reader, which reads that batch and on", async () => {
  for (const refuse of [() => false, () => assert.fail("cannot show it")]) {
    const { feed, send } = feedChannel();
    const hub = new StreamHub(feed, ring, new HubSubscriber(undefined), () => {});
    send(batch([]));
    await hub.ready;
    const got: number[][] = [];
    const r = await tapped(hub, (b) => {
      if (b.records[0]?.seq_num === "2") return refuse();
      got.push(seqsOf(b));
      return true;
    });
    send(batch([0, 1]), batch([2]), batch([3]));
    const step = await r.next;
    assert.deepEqual(got, [[0, 1]]);
    assert.deepEqual(step.done ? undefined : seqsOf(step.value), [2]);
    // Back at the head before [3] came, it may be told so first (a batch without records).
    let after = await r.it.next();
    if (!after.done && after.value.records.length === 0) after = await r.it.next();
    assert.deepEqual(after.done ? undefined : seqsOf(after.value), [3]);
    r.stop.abort();
    await r.it.return();
    hub.close();
  }
});

test("a fan-out serves a slice of readers per event-loop turn; a batch during it reaches all, in order", async () => {
  const { feed, send } = feedChannel();
  const hub = new StreamHub(
    feed,
    { ...ring, turns: new FanoutTurns(2) },
    new HubSubscriber(undefined),
    () => {},
  );
  send(batch([]));
  await hub.ready;
  const calls: number[] = [];
  let inFirstTurn: number | undefined;
  const readers = await Promise.all(
    [0, 1, 2, 3, 4].map(async (i) => {
      const got: number[][] = [];
      const r = await tapped(hub, (b) => {
        calls.push(i);
        // Microtasks run before the event loop's next turn: they see the first slice alone.
        if (calls.length === 1) queueMicrotask(() => (inFirstTurn = calls.length));
        got.push(seqsOf(b));
        return true;
      });
      return { ...r, got };
    }),
  );
  send(batch([0]));
  await waitFor(() => calls.length >= 1);
  send(batch([1, 2]));
  await waitFor(() => readers.every((r) => r.got.length === 2));
  assert.equal(inFirstTurn, 2);
  for (const r of readers) {
    assert.deepEqual(r.got, [[0], [1, 2]]);
    assert.equal(r.state.settled, false);
    r.stop.abort();
    await assert.rejects(r.next);
  }
  hub.close();
});

test("a reader the fan-out reaches late is offered every batch since its seq at once, and may take part", async () => {
  for (const takes of [3, 1]) {
    const { feed, send } = feedChannel();
    const hub = new StreamHub(
      feed,
      { ...ring, turns: new FanoutTurns(1) },
      new HubSubscriber(undefined),
      () => {},
    );
    send(batch([]));
    await hub.ready;
    const first = await tapped(hub, () => true);
    const offers: number[][][] = [];
    const late = await listTapped(hub, {
      deliver: (batches) => {
        offers.push(batches.map(seqsOf));
        return Math.min(takes, batches.length);
      },
    });
    // The first reader takes [0] in the feed's turn; before the next slice reaches the late
    // one, [1] and [2] arrive.
    send(batch([0]), batch([1]), batch([2, 3]));
    if (takes === 3) {
      await waitFor(() => offers.length > 0);
      assert.deepEqual(offers, [[[0], [1], [2, 3]]]);
      assert.equal(late.state.settled, false, "it took them all: its own read still waits");
    } else {
      const step = await late.next;
      assert.deepEqual(offers, [[[0], [1], [2, 3]]]);
      assert.deepEqual(step.done ? undefined : seqsOf(step.value), [1], "the rest, its own way");
      const after = await late.it.next();
      assert.deepEqual(after.done ? undefined : seqsOf(after.value), [2, 3]);
    }
    for (const r of [first, late]) r.stop.abort();
    await Promise.allSettled([first.next, late.next]);
    hub.close();
  }
});

test("hubs sharing their turns serve that many readers a turn between them", async () => {
  const turns = new FanoutTurns(2);
  const hubs = [feedChannel(), feedChannel()].map(({ feed, send }) => ({
    hub: new StreamHub(feed, { ...ring, turns }, new HubSubscriber(undefined), () => {}),
    send,
  }));
  for (const { hub, send } of hubs) {
    send(batch([]));
    await hub.ready;
  }
  let turn = 0;
  const calls: string[] = [];
  const readers = await Promise.all(
    ["a1", "a2", "b1", "b2"].map((name) =>
      tapped(hubs[name.startsWith("a") ? 0 : 1]?.hub as StreamHub, () => {
        calls.push(`${name}@${turn}`);
        return true;
      }),
    ),
  );
  let counting = true;
  // Counts the turns, each counted before the hubs' part of it.
  const counter = (async () => {
    while (counting) {
      await new Promise((resolve) => setImmediate(resolve));
      turn++;
    }
  })();
  for (const { send } of hubs) send(batch([0]));
  await waitFor(() => calls.length === 4);
  counting = false;
  await counter;
  assert.deepEqual(calls, ["a1@0", "a2@0", "b1@1", "b2@1"]);
  for (const r of readers) r.stop.abort();
  await Promise.allSettled(readers.map((r) => r.next));
  for (const { hub } of hubs) hub.close();
});
