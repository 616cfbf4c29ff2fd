import assert from "node:assert/strict";
import { test } from "node:test";
import { queryObjects } from "node:v8";
import { gzipSync } from "node:zlib";
import { waitFor } from "../../../../test/harness/wait.ts";
import { AppendAdmission } from "../../http/index.ts";
import { S2sAppendSession } from "./append-session.ts";
import { encodeFrame, FrameError } from "./frame.ts";
import { FakeOutput } from "./frame-output.test-helper.ts";
import { FrameWriter } from "./frame-output.ts";

const text = (s: string) => new TextEncoder().encode(s);
const input = (s: string, compression: "none" | "gzip" = "none") =>
  encodeFrame({
    terminal: false,
    compression,
    reconnectAdvised: false,
    payload: compression === "gzip" ? gzipSync(text(s)) : text(s),
  });

async function* chunksOf(parts: Uint8Array[]): AsyncGenerator<Uint8Array> {
  for (const p of parts) yield p;
}

interface SessionOptions {
  onAppend?: (s: string) => void;
  /** The budget the session draws on: by default, its own. */
  admission?: AppendAdmission;
  /** The socket takes no write at once (a reader that does not read). */
  full?: boolean;
  stallMs?: number;
  onStall?: () => void;
}

/** Inputs are text, acked as "ack <text>"; "bad" does not decode and "fail" fails upstream. */
function session(parts: Uint8Array[] | AsyncGenerator<Uint8Array>, opts: SessionOptions = {}) {
  const out = new FakeOutput();
  out.full = opts.full ?? false;
  const appended: string[] = [];
  let failed = false;
  const writer = new FrameWriter(out, "none", opts.stallMs ?? 1_000, opts.onStall);
  const session = new S2sAppendSession<string, string>({
    chunks: Array.isArray(parts) ? chunksOf(parts) : parts,
    admission: (opts.admission ?? new AppendAdmission(1 << 20)).session("client"),
    decodeInput: (payload) => {
      const t = new TextDecoder().decode(payload);
      if (t === "bad") throw new Error("bad_proto");
      return t;
    },
    encodeAck: (ack) => text(`ack ${ack}`),
    // As the pipeline does: an ack in flight, and after a failure nothing more lands.
    submit: async (batch) => {
      opts.onAppend?.(batch);
      if (failed || batch === "fail") {
        failed = true;
        return { ack: Promise.reject(new Error("upstream")) };
      }
      appended.push(batch);
      return { ack: Promise.resolve(batch) };
    },
    terminal: (err) => {
      const { status = 500, code = "other" } = err as { status?: number; code?: string };
      return err instanceof FrameError
        ? { status: 400, body: text('{"code":"bad_frame"}') }
        : { status, body: text(JSON.stringify({ code })) };
    },
    draining: () => ({ status: 503, body: text('{"code":"server_draining"}') }),
  });
  const s = { run: () => session.run(writer), drain: () => session.drain() };
  return { s, out, appended };
}

/** Chunks the test hands over one at a time, then the end. */
function feed() {
  const queue: (Uint8Array | null)[] = [];
  let wake: (() => void) | undefined;
  async function* chunks(): AsyncGenerator<Uint8Array> {
    for (;;) {
      while (queue.length === 0) await new Promise<void>((resolve) => (wake = resolve));
      const chunk = queue.shift();
      if (!chunk) return;
      yield chunk;
    }
  }
  const give = (chunk: Uint8Array | null) => {
    queue.push(chunk);
    wake?.();
  };
  return { chunks: chunks(), push: (chunk: Uint8Array) => give(chunk), end: () => give(null) };
}

test("a frame still arriving is taken from the budget as it arrives, and given back once whole", async () => {
  const admission = new AppendAdmission(1 << 20);
  const body = feed();
  const { s, out, appended } = session(body.chunks, { admission });
  const running = s.run();
  const frame = input("x".repeat(1000));
  body.push(frame.subarray(0, 600));
  await waitFor(() => admission.inflight === 600);
  body.push(frame.subarray(600));
  await waitFor(() => appended.length === 1);
  assert.equal(admission.inflight, 0);
  body.end();
  await running;
  assert.deepEqual(out.messages(), [`ack ${"x".repeat(1000)}`]);
});

test("a frame still arriving past the budget, nothing in flight: the session ends with the 429", async () => {
  const admission = new AppendAdmission(1 << 20);
  const other = admission.body("other", 1 << 20);
  other.take((1 << 20) - 100);
  const body = feed();
  const { s, out, appended } = session(body.chunks, { admission });
  const running = s.run();
  body.push(input("x".repeat(1000)).subarray(0, 200));
  await waitFor(() => out.terminal() !== undefined, { message: "the terminal frame" });
  await running;
  assert.deepEqual(out.terminal(), { status: 429, body: { code: "resource_exhausted" } });
  assert.deepEqual(appended, []);
  other.release();
  assert.equal(admission.inflight, 0);
});

test("inputs split across chunks are appended and acked in order, then the response ends", async () => {
  const wire = Buffer.concat([input("a"), input("b", "gzip"), input("c")]);
  const { s, out, appended } = session([
    wire.subarray(0, 5),
    wire.subarray(5, 6),
    wire.subarray(6),
  ]);
  await s.run();
  assert.deepEqual(appended, ["a", "b", "c"]);
  assert.deepEqual(out.messages(), ["ack a", "ack b", "ack c"]);
  assert.equal(out.terminal(), undefined);
  assert.equal(out.ended, true);
});

test("a malformed frame is answered after the inputs before it; nothing after it lands", async () => {
  const { s, out, appended } = session([input("a"), Uint8Array.of(0, 0, 1, 0x60), input("c")]);
  await s.run();
  assert.deepEqual(appended, ["a"]);
  assert.deepEqual(out.messages(), ["ack a"]);
  assert.deepEqual(out.terminal(), { status: 400, body: { code: "bad_frame" } });
});

test("bad bytes after good frames in one chunk end the session then, the client still sending", async () => {
  let more: (() => void) | undefined;
  async function* held(): AsyncGenerator<Uint8Array> {
    yield Buffer.concat([input("a"), Uint8Array.of(0xff, 0xff, 0xff, 0)]);
    // The client keeps the body open and sends nothing more until the session answers.
    await new Promise<void>((resolve) => {
      more = resolve;
    });
  }
  const { s, out, appended } = session(held());
  let deadline: NodeJS.Timeout | undefined;
  await Promise.race([
    s.run(),
    new Promise((_, reject) => {
      deadline = setTimeout(() => reject(new Error("no answer while the client waits")), 10_000);
    }),
  ]).finally(() => clearTimeout(deadline));
  assert.deepEqual(appended, ["a"]);
  assert.deepEqual(out.messages(), ["ack a"]);
  assert.deepEqual(out.terminal(), { status: 400, body: { code: "bad_frame" } });
  more?.();
});

test("an oversized frame is refused from its length, before its body", async () => {
  const { s, out, appended } = session([Uint8Array.of(0x20, 0, 1)]);
  await s.run();
  assert.deepEqual(appended, []);
  assert.deepEqual(out.terminal(), { status: 400, body: { code: "bad_frame" } });
});

test("a body that ends inside a frame, or a terminal frame from the client, is a bad frame", async () => {
  for (const tail of [
    input("b").subarray(0, 4),
    encodeFrame({ terminal: true, status: 200, body: text("{}") }),
  ]) {
    const { s, out, appended } = session([input("a"), tail]);
    await s.run();
    assert.deepEqual(appended, ["a"]);
    assert.deepEqual(out.terminal(), { status: 400, body: { code: "bad_frame" } });
  }
});

test("an input that does not decode, or fails upstream, ends the session after the acks before it", async () => {
  for (const bad of ["bad", "fail"]) {
    const tried: string[] = [];
    const { s, out, appended } = session([input("a"), input(bad), input("c")], {
      onAppend: (b) => tried.push(b),
    });
    await s.run();
    assert.deepEqual(appended, ["a"]);
    assert.deepEqual(out.messages(), ["ack a"]);
    // One that does not decode is never submitted, nor is anything after it.
    if (bad === "bad") assert.deepEqual(tried, ["a"]);
    assert.equal(out.terminal()?.status, 500);
  }
});

test("inputs are pipelined: later ones are submitted before earlier ones are acked", async () => {
  const out = new FakeOutput();
  const acks: ((v: string) => void)[] = [];
  const s = new S2sAppendSession<string, string>({
    chunks: chunksOf([input("a"), input("b"), input("c")]),
    admission: new AppendAdmission(1 << 20).session("client"),
    decodeInput: (payload) => new TextDecoder().decode(payload),
    encodeAck: (ack) => text(`ack ${ack}`),
    submit: async () => ({ ack: new Promise<string>((resolve) => acks.push(resolve)) }),
    terminal: () => ({ status: 500, body: text("{}") }),
    draining: () => ({ status: 503, body: text("{}") }),
  });
  const running = s.run(new FrameWriter(out, "none", 1_000));
  while (acks.length < 3) await new Promise((resolve) => setImmediate(resolve));
  // Answered out of order upstream, acked in order to the client.
  acks[2]?.("c");
  acks[0]?.("a");
  acks[1]?.("b");
  await running;
  assert.deepEqual(out.messages(), ["ack a", "ack b", "ack c"]);
  assert.equal(out.ended, true);
});

test("draining lets the batch in flight finish, then ends with server_draining", async () => {
  let s: { drain(): void } | undefined;
  const made = session([input("a"), input("b")], { onAppend: () => s?.drain() });
  s = made.s;
  await made.s.run();
  assert.deepEqual(made.appended, ["a"]);
  assert.deepEqual(made.out.messages(), ["ack a"]);
  assert.deepEqual(made.out.terminal(), { status: 503, body: { code: "server_draining" } });
});

test("a reader that does not take its acks stalls the session, and past the limit loses it", async () => {
  let stalls = 0;
  const onStall = () => stalls++;
  const { s, out } = session([input("a"), input("b")], { full: true, stallMs: 20, onStall });
  await s.run();
  assert.equal(out.destroyed, true);
  assert.equal(stalls, 1);
  assert.deepEqual(out.messages(), ["ack a"]);
});

test("draining ends a session waiting for the client's next frame at once", async () => {
  let release: (() => void) | undefined;
  const never = new Promise<void>((resolve) => {
    release = resolve;
  });
  async function* stalled(): AsyncGenerator<Uint8Array> {
    yield input("a");
    await never;
  }
  const { s, out } = session(stalled());
  const running = s.run();
  await new Promise<void>((resolve) => out.once("wrote", resolve));
  s.drain();
  await running;
  release?.();
  assert.deepEqual(out.messages(), ["ack a"]);
  assert.deepEqual(out.terminal(), { status: 503, body: { code: "server_draining" } });
});

test("a long session keeps nothing per frame while it waits on its stop and its drain", async () => {
  const FRAMES = 600;
  const live = () => queryObjects(Promise, { format: "count" }) as number;
  const counts: number[] = [];
  async function* frames(): AsyncGenerator<Uint8Array> {
    for (let i = 0; i < FRAMES; i++) {
      if (i === 100 || i === FRAMES - 1) counts.push(live());
      yield input(`r${i}`);
    }
  }
  const { s, appended } = session(frames());
  await s.run();
  assert.equal(appended.length, FRAMES);
  const [atStart, atEnd] = counts as [number, number];
  assert.ok(atEnd - atStart < 100, `${atEnd - atStart} promises kept over ${FRAMES - 101} frames`);
});
