import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import { waitFor } from "../../../../test/harness/wait.ts";
import { ModelStream } from "../sources/model-stream.test-helper.ts";
import type { BatchSource, Cursor, SourceBatch } from "../sources/source.ts";
import { HubRegistry } from "./hub-registry.ts";
import type { RingLimits } from "./hub-ring.ts";
import { type HubEvents, type SharedSourceDeps, sharedSource } from "./shared-source.ts";

/** A reader that pulls only when told: one that is not told is a slow reader. */
class Reader {
  readonly seqs: number[] = [];
  readonly #stop = new AbortController();
  readonly #it: AsyncIterator<SourceBatch>;
  error: unknown;
  /** The first seq_num it reads: its cursor, or the tail it found. */
  first = 0;
  left = false;

  private constructor(source: BatchSource, cursor: Cursor) {
    this.#it = source(cursor, this.#stop.signal)[Symbol.asyncIterator]();
  }

  /** Starts reading, as an SSE session does: its first batch is in (at the tail, an empty one). */
  static async open(source: BatchSource, cursor: Cursor): Promise<Reader> {
    const r = new Reader(source, cursor);
    const batch = await r.pullOne();
    const head = batch?.records[0];
    r.first = head ? Number(head.seq_num) : Number(batch?.tail?.seq_num ?? -1);
    return r;
  }

  /** Pulls until it has seen every record below `until`. */
  async readTo(until: number): Promise<void> {
    while ((this.seqs[this.seqs.length - 1] ?? this.first - 1) < until - 1) {
      const step = await this.#it.next();
      if (step.done) throw new Error("the source ended");
      for (const r of step.value.records) this.seqs.push(Number(r.seq_num));
    }
  }

  /** Pulls one batch, noting an error instead of throwing it. */
  async pullOne(): Promise<SourceBatch | undefined> {
    try {
      const step = await this.#it.next();
      if (step.done) return undefined;
      for (const r of step.value.records) this.seqs.push(Number(r.seq_num));
      return step.value;
    } catch (err) {
      this.error = err;
      return undefined;
    }
  }

  async stop(): Promise<void> {
    this.left = true;
    this.#stop.abort(new Error("reader stopped"));
    await this.#it.return?.().catch(() => {});
  }
}

/** `source` until `signal` aborts; then it fails, as a hub's feed whose star gave up. */
async function* failingOn(
  signal: AbortSignal,
  source: AsyncIterable<SourceBatch>,
): AsyncGenerator<SourceBatch> {
  const it = source[Symbol.asyncIterator]();
  const failed = new Promise<never>((_, reject) => {
    signal.addEventListener("abort", () => reject(new Error("the hub's feed failed")));
  });
  failed.catch(() => {});
  try {
    for (;;) {
      const step = await Promise.race([it.next(), failed]);
      if (step.done) return;
      yield step.value;
    }
  } finally {
    // Not awaited: the model's feed, waiting for an append, ends only once one comes.
    void it.return?.();
  }
}

/** A hub feed that holds its next batch while `held` (a star's Subscribe running late). */
class FeedGate {
  held = false;
  #release: (() => void) | undefined;
  async *through(source: AsyncIterable<SourceBatch>): AsyncGenerator<SourceBatch> {
    for await (const batch of source) {
      while (this.held) {
        await new Promise<void>((resolve) => {
          this.#release = resolve;
        });
      }
      yield batch;
    }
  }
  open(): void {
    this.held = false;
    this.#release?.();
  }
}

function setup(ring: RingLimits = { maxBatches: 3, maxBytes: 1 << 20 }, gate = new FeedGate()) {
  const model = new ModelStream();
  let hubFeeds = new AbortController();
  const counts = { hit: 0, miss: 0, detached: 0, attached: 0 };
  const events: HubEvents = {
    joined: (hit) => {
      counts[hit ? "hit" : "miss"]++;
    },
    detached: () => {
      counts.detached++;
    },
    attached: (d) => {
      counts.attached += d;
    },
  };
  const registry = new HubRegistry({
    ring,
    lingerMs: 0,
    feed: () => (cursor, signal, authorization) =>
      failingOn(hubFeeds.signal, gate.through(model.feed(authorization)(cursor, signal))),
  });
  /** The feeds of the hubs there are fail (not a refusal); later hubs' feeds do not. */
  const failHubs = () => {
    hubFeeds.abort();
    hubFeeds = new AbortController();
  };
  const deps: SharedSourceDeps = {
    registry,
    upstream: model.upstream(),
    own: (stream, cursor, signal) => model.feed(stream.authorization)(cursor, signal),
    events,
  };
  const source = (authorization?: string) =>
    sharedSource(deps, { bucket: "b", key: "k", authorization });
  return { model, registry, source, counts, failHubs };
}

const at = (seq: number): Cursor => ({ start: { seq_num: String(seq) }, clamp: false });
const TAIL: Cursor = { start: {}, clamp: false };
const range = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => from + i);

test("readers at any position, joining, lagging and leaving while appends run, each see every record once, in order", async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.array(
        fc.oneof(
          fc.record({ op: fc.constant("append" as const), n: fc.integer({ min: 1, max: 3 }) }),
          fc.record({ op: fc.constant("join" as const), back: fc.integer({ min: -1, max: 12 }) }),
          fc.record({ op: fc.constant("read" as const), who: fc.nat() }),
          fc.record({ op: fc.constant("leave" as const), who: fc.nat() }),
        ),
        { maxLength: 40 },
      ),
      async (ops) => {
        const { model, registry, source } = setup();
        model.append(2);
        const readers: Reader[] = [];
        const live = () => readers.filter((r) => !r.left);
        try {
          for (const o of ops) {
            if (o.op === "append") model.append(o.n);
            else if (o.op === "join") {
              const len = model.records.length;
              // back -1: from the tail; else that many records back (at most to seq 0).
              const first = o.back < 0 ? len : Math.max(0, len - o.back);
              const r = await Reader.open(source(), o.back < 0 ? TAIL : at(first));
              assert.equal(r.first, first);
              readers.push(r);
            } else {
              const r = live()[o.who % Math.max(1, live().length)];
              if (!r) continue;
              if (o.op === "read") await r.readTo(model.records.length);
              else {
                await r.stop();
                assert.deepEqual(r.seqs, range(r.first, r.first + r.seqs.length));
              }
            }
          }
          model.append(1);
          const len = model.records.length;
          for (const r of live()) {
            await r.readTo(len);
            assert.deepEqual(r.seqs, range(r.first, len));
          }
        } finally {
          for (const r of readers) await r.stop();
        }
        await waitFor(() => model.open === 0 && registry.size === 0, {
          message: "every upstream call closed",
        });
      },
    ),
    { numRuns: 40 },
  );
});

test("a reader joining at the hub's head is never told it caught up past records it has not got", async () => {
  // Found by the property above: the feed's last frame said tail 8 while the hub held records to
  // 5 only; the joining reader's caught-up batch carried tail 8, and a session resuming from it
  // would have skipped 5, 6 and 7.
  const { model, source } = setup();
  model.append(2);
  const idle = await Reader.open(source(), TAIL);
  for (const n of [1, 1, 1, 3]) model.append(n);
  const joined = await Reader.open(source(), at(5));
  assert.equal(joined.first, 5);
  await joined.readTo(8);
  assert.deepEqual(joined.seqs, [5, 6, 7]);
  await idle.stop();
  await joined.stop();
});

test("a reader from the tail starts after every record acked before it, though the hub lags", async () => {
  // Found by the property above: the hub had taken records to 4 when a reader from the tail
  // joined after record 5 was acked; it started at 5. The tail its own check found rules.
  const { model, source } = setup();
  model.append(2);
  const idle = await Reader.open(source(), at(2));
  for (let i = 0; i < 4; i++) model.append(1);
  const joined = await Reader.open(source(), TAIL);
  assert.equal(joined.first, 6);
  model.append(1);
  await joined.readTo(7);
  assert.deepEqual(joined.seqs, [6]);
  await idle.stop();
  await joined.stop();
});

/**
 * A hub whose feed runs late (records 2 and 3 acked, the hub has not heard of them) and a reader
 * from the tail that `join` opens, once it has made its own CheckTail (tail 4) and waits there.
 */
async function tailReaderOfLaggingHub<T>(join: (source: BatchSource) => T) {
  const gate = new FeedGate();
  const { model, source, failHubs } = setup(undefined, gate);
  const opener = await Reader.open(source(), TAIL);
  model.append(2);
  await opener.readTo(2);
  gate.held = true;
  model.append(2);
  const checks = model.checks;
  const joining = join(source());
  await waitFor(() => model.checks > checks, { message: "the reader's CheckTail" });
  await new Promise((resolve) => setImmediate(resolve));
  return { gate, model, failHubs, opener, joining };
}

test("a reader from the tail whose lagging hub fails starts at its own check's tail", async () => {
  const { gate, model, failHubs, opener, joining } = await tailReaderOfLaggingHub((source) =>
    Reader.open(source, TAIL),
  );
  // It waits for the hub to reach its tail (4) when the hub fails; 4 and 5 come after it asked.
  failHubs();
  model.append(2);
  gate.open();
  const joined = await joining;
  await joined.readTo(6);
  assert.deepEqual([joined.first, ...joined.seqs.slice(0, 2)], [4, 4, 5]);
  await opener.stop();
  await joined.stop();
});

test("a reader from the tail that leaves while it waits for its lagging hub opens nothing of its own", async () => {
  const leaving = new AbortController();
  const { gate, model, opener, joining } = await tailReaderOfLaggingHub((source) => {
    const first = source(TAIL, leaving.signal)[Symbol.asyncIterator]().next();
    first.catch(() => {});
    return first;
  });
  const first = joining;
  const opened = model.opened;
  leaving.abort(new Error("the client left"));
  // Its read ends (bounded: one that never settles would hold the test).
  await assert.rejects(
    Promise.race([
      first,
      new Promise((_, reject) => {
        setTimeout(() => reject(new Error("the read never ended")), 5_000).unref();
      }),
    ]),
    /the client left/,
  );
  assert.equal(model.opened, opened, "no Subscribe opened for a reader that left");
  gate.open();
  await opener.stop();
});

/**
 * A hub whose feed runs late (5, 6 and 7 acked, the hub at 5) and a reader from 6 that read 6
 * and 7 on its own and waits at the hub for what follows, reading to 9.
 */
async function aheadOfLaggingHub() {
  const gate = new FeedGate();
  const { model, source } = setup(undefined, gate);
  const opener = await Reader.open(source(), TAIL);
  for (let i = 0; i < 5; i++) model.append(1);
  await opener.readTo(5);
  gate.held = true;
  for (let i = 0; i < 3; i++) model.append(1);
  const reader = await Reader.open(source(), at(6));
  const reading = reader.readTo(9);
  reading.catch(() => {});
  await waitFor(() => reader.seqs.length === 2 && model.open === 1, {
    message: "its own Subscribe stopped while it waits at the hub",
  });
  return { gate, model, opener, reader, reading };
}

test("a reader caught up ahead of its lagging hub waits there without a Subscribe of its own", async () => {
  const { gate, model, opener, reader, reading } = await aheadOfLaggingHub();
  gate.open();
  model.append(1);
  await reading;
  assert.deepEqual(reader.seqs, [6, 7, 8]);
  await opener.stop();
  await reader.stop();
});

test("a reader that leaves while it waits ahead of its hub opens no Subscribe of its own", async () => {
  const { gate, model, opener, reader, reading } = await aheadOfLaggingHub();
  const opened = model.opened;
  await reader.stop();
  await reading.catch(() => undefined);
  gate.open();
  model.append(1);
  await opener.readTo(9);
  assert.equal(model.opened, opened, "nothing opened for a reader that left");
  await opener.stop();
});

test("readers at the tail share one upstream Subscribe, whatever their number", async () => {
  const { model, source, registry, counts } = setup();
  model.append(1);
  const readers = await Promise.all(Array.from({ length: 50 }, () => Reader.open(source(), TAIL)));
  model.append(3);
  await Promise.all(readers.map((r) => r.readTo(4)));
  assert.equal(model.opened, 1);
  assert.equal(counts.hit, 50);
  assert.equal(counts.attached, 50);
  for (const r of readers) assert.deepEqual(r.seqs, [1, 2, 3]);
  for (const r of readers) await r.stop();
  await waitFor(() => model.open === 0 && registry.size === 0, { message: "hub closed" });
  assert.equal(counts.attached, 0);
});

test("a reader behind the window catches up on its own source and joins the hub", async () => {
  const { model, source, counts } = setup();
  const opener = await Reader.open(source(), TAIL);
  model.append(1);
  await opener.readTo(1);
  for (let i = 0; i < 10; i++) {
    model.append(1);
    await opener.readTo(model.records.length);
  }
  const behind = await Reader.open(source(), at(0));
  await behind.readTo(11);
  assert.equal(counts.miss, 1, "it started behind the window");
  assert.equal(model.open, 1, "its own Subscribe ended once it joined");
  model.append(2);
  await behind.readTo(13);
  assert.deepEqual(behind.seqs, range(0, 13));
  assert.equal(model.open, 1);
  await opener.stop();
  await behind.stop();
});

test("a reader past the tail with clamp starts at the tail, as the star reads it", async () => {
  const { model, source } = setup();
  const opener = await Reader.open(source(), TAIL);
  model.append(5);
  await opener.readTo(5);
  const clamped = await Reader.open(source(), { start: { seq_num: "10" }, clamp: true });
  assert.equal(clamped.first, 5);
  model.append(1);
  model.append(5);
  await clamped.readTo(11);
  assert.deepEqual(clamped.seqs, range(5, 11));
  await opener.stop();
  await clamped.stop();
});

test("a reader catching up when its hub fails joins the stream's next hub, without a gap", async () => {
  const { model, source, failHubs, counts } = setup();
  const opener = await Reader.open(source(), TAIL);
  for (let i = 0; i < 10; i++) model.append(1);
  await opener.readTo(10);
  const behind = await Reader.open(source(), at(0));
  await behind.readTo(2);
  assert.equal(model.open, 2, "the hub's feed and the catching-up reader's own");
  const hits = counts.hit;
  failHubs();
  // A follower is told (after the caught-up batch it had not pulled yet).
  while ((await opener.pullOne()) !== undefined);
  assert.match(String(opener.error), /the hub's feed failed/);
  await behind.readTo(10);
  model.append(2);
  await behind.readTo(12);
  assert.deepEqual(behind.seqs, range(0, 12));
  assert.equal(counts.hit, hits + 1, "it joined the stream's new hub");
  // On a new hub, not its own Subscribe: one feed open, the new hub's.
  await waitFor(() => model.open === 1, { message: "the reader's own Subscribe to end" });
  await opener.stop();
  await behind.stop();
});

test("a slow reader falls out of the window, catches up on its own and rejoins without a gap", async () => {
  const { model, source, counts } = setup({ maxBatches: 2, maxBytes: 1 << 20 });
  const fast = await Reader.open(source(), TAIL);
  const slow = await Reader.open(source(), TAIL);
  model.append(1);
  await fast.readTo(1);
  await slow.readTo(1);
  for (let i = 0; i < 8; i++) {
    model.append(2);
    await fast.readTo(model.records.length);
  }
  await slow.readTo(model.records.length);
  assert.equal(counts.detached, 1);
  assert.deepEqual(slow.seqs, range(0, 17));
  model.append(1);
  await slow.readTo(18);
  assert.deepEqual(slow.seqs, range(0, 18));
  await waitFor(() => model.open === 1, { message: "the slow reader's own Subscribe ended" });
  await fast.stop();
  await slow.stop();
});

test("a reader the star refuses gets the refusal and nothing the hub holds", async () => {
  const { model, source } = setup();
  const ok = await Reader.open(source("Bearer good"), TAIL);
  model.append(2);
  await ok.readTo(2);
  model.refuse("Bearer bad");
  const bad = await Reader.open(source("Bearer bad"), at(0));
  assert.match(String(bad.error), /UNAUTHENTICATED/);
  assert.deepEqual(bad.seqs, []);
  model.append(1);
  await ok.readTo(3);
  await ok.stop();
});

test("when the hub's credential is refused it moves to another reader's, with no gap", async () => {
  const { model, source } = setup();
  const first = await Reader.open(source("Bearer first"), TAIL);
  model.append(1);
  await first.readTo(1);
  const second = await Reader.open(source("Bearer second"), TAIL);
  model.refuse("Bearer first");
  model.append(2);
  await second.readTo(3);
  assert.deepEqual(second.seqs, [1, 2]);
  assert.equal(model.open, 1);
  await first.stop();
  await second.stop();
});

test("a reader whose hub failed on its credential opens a new hub and goes on where it was", async () => {
  for (const cut of ["following", "catching up"]) {
    const { model, source, counts } = setup();
    const reader = await Reader.open(source("Bearer r"), at(0));
    model.append(2);
    await reader.readTo(2);
    if (cut === "catching up") {
      // Past the window of 3 batches: it falls out and reads [2] from its own feed.
      for (let i = 0; i < 5; i++) model.append(1);
      // The hub takes them in the microtasks after the appends.
      await new Promise((resolve) => setImmediate(resolve));
      await reader.readTo(3);
      assert.equal(counts.detached, 1);
    }
    // The star ends every feed on the credential once (the hub's has no other to move to).
    const opened = model.opened;
    model.endFeeds("Bearer r");
    model.append(1);
    await reader.readTo(model.records.length);
    assert.deepEqual(reader.seqs, range(0, model.records.length), cut);
    assert.equal(reader.error, undefined);
    assert.ok(model.opened > opened, `${cut}: a new feed`);
    await reader.stop();
  }
});

test("a reader whose token expires is ended; the others go on", async () => {
  const { model, source } = setup();
  const claims = Buffer.from(JSON.stringify({ exp: (Date.now() + 3000) / 1000 })).toString(
    "base64url",
  );
  const expiring = await Reader.open(source(`Bearer h.${claims}.s`), TAIL);
  const other = await Reader.open(source("Bearer other"), TAIL);
  model.append(1);
  await expiring.readTo(1);
  await other.readTo(1);
  // The expiry's timer is unref'd (it must not hold a gateway open): this deadline keeps the
  // test's event loop alive until the token expires, and fails the test if it never does.
  const deadline = setTimeout(
    () => assert.fail("the token did not end its reader in 30 s"),
    30_000,
  );
  try {
    for (;;) {
      const batch = await expiring.pullOne();
      if (batch === undefined) break;
    }
  } finally {
    clearTimeout(deadline);
  }
  assert.match(String((expiring.error as Error).message), /token has expired/);
  model.append(1);
  await other.readTo(2);
  await other.stop();
});

test("a stream deleted under the hub ends every reader with NOT_FOUND", async () => {
  const { model, source, registry } = setup();
  const a = await Reader.open(source(), TAIL);
  const b = await Reader.open(source(), TAIL);
  model.append(1);
  await a.readTo(1);
  await b.readTo(1);
  model.delete();
  while (await a.pullOne());
  while (await b.pullOne());
  assert.match(String(a.error), /NOT_FOUND/);
  assert.match(String(b.error), /NOT_FOUND/);
  assert.equal(registry.size, 0);
});

test("a stream that does not exist is left to the reader's own Subscribe", async () => {
  const { model, source } = setup();
  model.delete();
  const r = await Reader.open(source(), TAIL);
  assert.match(String(r.error), /NOT_FOUND.*no such stream/);
  assert.equal(model.checks, 1);
});

test("a joiner at the window's oldest record follows the hub; one just below it catches up first", async () => {
  const { model, source, counts } = setup({ maxBatches: 2, maxBytes: 1 << 20 });
  const opener = await Reader.open(source(), TAIL);
  for (let i = 0; i < 5; i++) {
    model.append(2);
    await opener.readTo(model.records.length);
  }
  // The window holds the last two batches: seq_nums 6 to 9.
  const edge = await Reader.open(source(), at(6));
  assert.deepEqual(counts, { hit: 2, miss: 0, detached: 0, attached: 2 });
  const below = await Reader.open(source(), at(5));
  assert.equal(counts.miss, 1);
  await edge.readTo(10);
  await below.readTo(10);
  model.append(1);
  await edge.readTo(11);
  await below.readTo(11);
  assert.deepEqual(edge.seqs, range(6, 11));
  assert.deepEqual(below.seqs, range(5, 11));
  assert.equal(counts.hit, 3, "the one below joined once it reached the window");
  for (const r of [opener, edge, below]) await r.stop();
});
