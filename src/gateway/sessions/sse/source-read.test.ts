import assert from "node:assert/strict";
import { test } from "node:test";
import type { BatchSource, Cursor, SourceBatch } from "../sources/index.ts";
import { SourceRead, stopWith } from "./source-read.ts";

const cursor: Cursor = { start: { seq_num: "5" }, clamp: false };
const batch = (seq: number): SourceBatch => ({
  records: [{ seq_num: String(seq), timestamp_ms: "0", body: Buffer.from("x"), headers: [] }],
  tail: { seq_num: String(seq + 1), timestamp_ms: "0" },
});

/** A source whose iterator answers each next() with the given steps in turn, then waits. */
function scripted(steps: (SourceBatch | Error | "end")[]) {
  const seen = { opened: 0, pulls: 0, returns: 0, cursor: undefined as Cursor | undefined };
  let signal: AbortSignal | undefined;
  const source: BatchSource = (at, s) => {
    seen.opened++;
    seen.cursor = at;
    signal = s;
    return {
      [Symbol.asyncIterator]: () => ({
        next: async (): Promise<IteratorResult<SourceBatch>> => {
          seen.pulls++;
          const step = steps.shift();
          if (step === undefined) return new Promise(() => {});
          if (step === "end") return { done: true, value: undefined };
          if (step instanceof Error) throw step;
          return { done: false, value: step };
        },
        return: async (): Promise<IteratorResult<SourceBatch>> => {
          seen.returns++;
          return { done: true, value: undefined };
        },
      }),
    };
  };
  return { source, seen, signal: () => signal as AbortSignal };
}

test("open reads the first batch at the cursor; first() hands it over once", async () => {
  const { source, seen } = scripted([batch(5)]);
  const read = new SourceRead(source, cursor, new AbortController().signal, "done");
  assert.equal(seen.opened, 0, "nothing opens before open()");
  await read.open(() => new Error("empty"));
  assert.deepEqual(seen.cursor, cursor);
  assert.deepEqual(read.first(), batch(5));
  assert.throws(() => read.first(), /already taken/);
});

test("a source that ends or fails before a batch: open throws, and the read is released", async () => {
  for (const step of ["end", new Error("stream_not_found")] as const) {
    const { source, seen, signal } = scripted([step]);
    const read = new SourceRead(source, cursor, new AbortController().signal, "done");
    await assert.rejects(
      read.open(() => new Error("ended before it started")),
      step === "end" ? /ended before it started/ : /stream_not_found/,
    );
    assert.equal(read.stopped, true);
    assert.equal(signal().aborted, true);
    assert.equal(seen.returns, 1);
  }
});

test("next() is one pull until taken(); then the next pull", async () => {
  const { source, seen } = scripted([batch(5), batch(6), batch(7)]);
  const read = new SourceRead(source, cursor, new AbortController().signal, "done");
  await read.open(() => new Error("empty"));
  read.first();
  const a = read.next();
  assert.equal(read.next(), a, "a race a timer won leaves the same pull for the next turn");
  assert.deepEqual(await a, { done: false, value: batch(6) });
  assert.equal(seen.pulls, 2);
  read.taken();
  assert.deepEqual(await read.next(), { done: false, value: batch(7) });
  assert.equal(seen.pulls, 3);
});

test("release stops the source once, with the reason; later pulls are the end", async () => {
  const { source, seen, signal } = scripted([batch(5)]);
  const read = new SourceRead(source, cursor, new AbortController().signal, "the test ended");
  await read.open(() => new Error("empty"));
  const pending = read.next();
  read.release();
  read.release();
  assert.equal(read.stopped, true);
  assert.equal((signal().reason as Error).message, "the test ended");
  assert.equal(seen.returns, 1);
  read.taken();
  assert.deepEqual(await read.next(), { done: true, value: undefined });
  // What was read before the release is still handed over (to a client that may be gone).
  assert.deepEqual(read.first(), batch(5));
  // The pull in flight never settles here; the read does not wait for it.
  assert.equal(
    await Promise.race([pending.then(() => "settled"), Promise.resolve("open")]),
    "open",
  );
});

test("the client going away stops the source with the client's reason", async () => {
  const client = new AbortController();
  const { source, signal } = scripted([batch(5)]);
  const read = new SourceRead(source, cursor, client.signal, "done");
  await read.open(() => new Error("empty"));
  client.abort(new Error("client gone"));
  assert.equal(read.stopped, true);
  assert.equal((signal().reason as Error).message, "client gone");
});

test("stopWith: a client already gone stops at once; an unlinked one stops nothing", () => {
  const gone = new AbortController();
  gone.abort(new Error("gone"));
  const stop = new AbortController();
  stopWith(gone.signal, stop);
  assert.equal((stop.signal.reason as Error).message, "gone");

  const client = new AbortController();
  const kept = new AbortController();
  const unlink = stopWith(client.signal, kept);
  unlink();
  client.abort();
  assert.equal(kept.signal.aborted, false);
});
