import assert from "node:assert/strict";
import { Duplex, PassThrough, Writable } from "node:stream";
import { test } from "node:test";
import { Metadata, status } from "@grpc/grpc-js";
import { waitFor } from "../../../../test/harness/wait.ts";
import { PRODUCER_ACKS_REMEMBERED } from "../../../contract/wire-limits.ts";
import { AppendAdmission } from "../../http/index.ts";
import { DEFAULT_APPEND_LIMITS } from "../../translate/index.ts";
import type { AppendSession, Upstream } from "../../upstream/index.ts";
import { NdjsonAppendSession } from "./ndjson-session.ts";

/** The star's side of an AppendSession, driven by the test. */
class FakeSessionCall extends Duplex {
  readonly written: { batch?: { records: { body: Buffer }[] } }[] = [];
  halfClosed = false;
  cancelled = false;
  constructor() {
    super({
      objectMode: true,
      read() {},
      write: (frame, _enc, cb) => {
        this.written.push(frame);
        cb();
      },
      final: (cb) => {
        this.halfClosed = true;
        cb();
      },
    });
  }
  ack(index: number, seq: number) {
    const pos = { seq_num: String(seq), timestamp_ms: "1" };
    const end = { seq_num: String(seq + 1), timestamp_ms: "1" };
    this.push({ ack: { batch_index: String(index), appended: { start: pos, end, tail: end } } });
  }
  finish(code: status) {
    this.push(null);
    this.emit("status", { code, details: `ended with ${code}`, metadata: new Metadata() });
  }
  cancel() {
    this.cancelled = true;
    this.finish(status.CANCELLED);
  }
}

class Out extends Writable {
  text = "";
  constructor() {
    super({ decodeStrings: false });
  }
  override _write(chunk: string, _enc: string, cb: () => void) {
    this.text += chunk;
    cb();
  }
  lines() {
    return this.text
      .split("\n")
      .filter((l) => l)
      .map((l) => JSON.parse(l));
  }
}

const line = (body: string) => `${JSON.stringify({ records: [{ body }] })}\n`;

function setup(
  window = 2,
  producer?: { id: string; epoch: string; seq: string },
  timeouts: { idleMs: number; slowConsumerMs: number; onSlowConsumer?: () => void } = {
    idleMs: 60_000,
    slowConsumerMs: 60_000,
  },
) {
  const call = new FakeSessionCall();
  const body = new PassThrough();
  const admission = new AppendAdmission(1 << 20);
  const upstream = {
    openAppendSession: async () =>
      ({
        call,
        opened: { window, tail: { seq_num: "0", timestamp_ms: "0" }, star_id: "s" },
        address: "x",
      }) as unknown as AppendSession,
  } as unknown as Upstream;
  const session = new NdjsonAppendSession({
    upstream,
    bucket: "b",
    key: "k",
    body,
    format: "raw",
    int64: "number",
    appendLimits: DEFAULT_APPEND_LIMITS,
    checkLine: () => {},
    lineLimits: { maxLineBytes: 1 << 16, maxSessionBytes: 1 << 20 },
    admission: admission.session("client"),
    signal: new AbortController().signal,
    ...(producer ? { producer } : {}),
    ...timeouts,
  });
  return { call, body, session, admission, out: new Out() };
}

test("batches pipeline up to the window; acks go out in order; the body's end closes it", async () => {
  const { call, body, session, admission, out } = setup(2);
  for (const b of ["a", "b", "c", "d", "e"]) body.write(line(b));
  body.end();
  await session.open();
  const running = session.run(out);
  await waitFor(() => call.written.length === 2);
  // The window is full: nothing more is sent before an ack.
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(call.written.length, 2);
  for (let i = 0; i < 5; i++) {
    await waitFor(() => call.written.length > i);
    call.ack(i, i);
  }
  await waitFor(() => call.halfClosed);
  call.finish(status.OK);
  await running;
  assert.deepEqual(
    call.written.map((f) => f.batch?.records[0]?.body.toString()),
    ["a", "b", "c", "d", "e"],
  );
  assert.deepEqual(
    out.lines().map((l) => l.start?.seq_num ?? l.end),
    [0, 1, 2, 3, 4, { reason: "done", batches: 5 }],
  );
  assert.equal(admission.inflight, 0);
});

test("with producer headers, no more batches are unanswered than the stream remembers acks of", async () => {
  const { call, body, session, out } = setup(64, { id: "p", epoch: "0", seq: "0" });
  for (let i = 0; i < PRODUCER_ACKS_REMEMBERED + 4; i++) body.write(line(String(i)));
  body.end();
  await session.open();
  const running = session.run(out);
  await waitFor(() => call.written.length === PRODUCER_ACKS_REMEMBERED);
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(call.written.length, PRODUCER_ACKS_REMEMBERED);
  for (let i = 0; i < PRODUCER_ACKS_REMEMBERED + 4; i++) {
    await waitFor(() => call.written.length > i);
    call.ack(i, i);
  }
  await waitFor(() => call.halfClosed);
  call.finish(status.OK);
  await running;
  assert.equal(out.lines().length, PRODUCER_ACKS_REMEMBERED + 5);
});

test("a star failure is the error line of the first unanswered batch, outcome unknown", async () => {
  const { call, body, session, admission, out } = setup(4);
  body.write(line("a"));
  body.write(line("b"));
  await session.open();
  const running = session.run(out);
  await waitFor(() => call.written.length === 2);
  call.ack(0, 0);
  await waitFor(() => out.lines().length === 1);
  call.finish(status.UNAVAILABLE);
  await running;
  const lines = out.lines();
  assert.equal(lines.length, 3);
  assert.equal(lines[1].code, "unavailable");
  assert.equal(lines[1].outcome, "unknown");
  assert.equal(lines[1].retryable, true);
  assert.equal(lines[1].line, 2);
  assert.deepEqual(lines[2], { end: { reason: "error", batches: 2 } });
  assert.equal(admission.inflight, 0);
});

test("a star failure with nothing in flight is told in the end line", async () => {
  const { call, body, session, out } = setup();
  body.write(line("a"));
  await session.open();
  const running = session.run(out);
  await waitFor(() => call.written.length === 1);
  call.ack(0, 0);
  await waitFor(() => out.lines().length === 1);
  call.finish(status.PERMISSION_DENIED);
  await running;
  const end = out.lines()[1].end;
  assert.equal(end.reason, "error");
  assert.equal(end.batches, 1);
  assert.equal(end.error.code, "permission_denied");
});

test("a line still arriving counts against admission as it arrives, and goes back once answered", async () => {
  const { call, body, session, admission, out } = setup();
  body.write(line("a"));
  await session.open();
  const running = session.run(out);
  await waitFor(() => call.written.length === 1);
  call.ack(0, 0);
  await waitFor(() => out.lines().length === 1);
  const half = '{"records":[{"body":"';
  body.write(half);
  await waitFor(() => admission.inflight === half.length);
  body.end('b"}]}\n');
  await waitFor(() => call.written.length === 2);
  call.ack(1, 1);
  await waitFor(() => call.halfClosed);
  call.finish(status.OK);
  await running;
  assert.equal(out.lines().length, 3);
  assert.equal(admission.inflight, 0);
});

test("a line completed while the window is full stays counted until it is sent", async () => {
  const { call, body, session, admission, out } = setup(1);
  const a = line("a");
  body.write(a);
  await session.open();
  const running = session.run(out);
  await waitFor(() => call.written.length === 1);
  const b = `{"records":[{"body":"${"b".repeat(500)}"}]}`;
  body.write(b.slice(0, 100));
  await waitFor(() => admission.inflight === a.length - 1 + 100);
  // Complete, and waiting for line 1's slot: all its bytes held, counted.
  body.write(`${b.slice(100)}\n`);
  for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
  assert.equal(call.written.length, 1);
  assert.equal(admission.inflight, a.length - 1 + 100, "what was taken as it arrived");
  call.ack(0, 0);
  await waitFor(() => call.written.length === 2);
  assert.equal(admission.inflight, b.length);
  call.ack(1, 1);
  body.end();
  await waitFor(() => call.halfClosed);
  call.finish(status.OK);
  await running;
  assert.equal(admission.inflight, 0);
});

test("a line still arriving past the budget waits for acks; with none to come it is 429", async () => {
  const { call, body, session, admission, out } = setup();
  // Another client holds all but 100 bytes of the gateway's budget.
  const other = admission.body("other", 1 << 20);
  other.take((1 << 20) - 100);
  body.write(line("a"));
  await session.open();
  const running = session.run(out);
  await waitFor(() => call.written.length === 1);
  // Over what is left: it waits for line 1's ack, whose bytes go back, and is still over.
  body.write("x".repeat(200));
  for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual([call.halfClosed, out.lines().length], [false, 0], "waiting, not refused");
  call.ack(0, 0);
  await waitFor(() => call.halfClosed);
  call.finish(status.OK);
  await running;
  const lines = out.lines();
  assert.equal(lines.length, 3);
  assert.deepEqual(
    [lines[1].code, lines[1].line, lines[1].retryable],
    ["resource_exhausted", 2, true],
  );
  assert.deepEqual(lines[2], { end: { reason: "error", batches: 2 } });
  assert.equal(call.written.length, 1);
  other.release();
  assert.equal(admission.inflight, 0);
});

test("lines that came in one chunk are admitted one by one: the first fits though both do not", async () => {
  const { call, body, session, admission, out } = setup();
  const one = line("a".repeat(60));
  // Another client holds all but room for one of the two lines.
  const other = admission.body("other", 1 << 20);
  other.take((1 << 20) - one.length - 10);
  body.write(one + line("b".repeat(60)));
  await session.open();
  const running = session.run(out);
  await waitFor(() => call.written.length === 1);
  // The second waits for the first's ack, then fits.
  call.ack(0, 0);
  await waitFor(() => call.written.length === 2);
  call.ack(1, 1);
  body.end();
  await waitFor(() => call.halfClosed);
  call.finish(status.OK);
  await running;
  assert.deepEqual(
    out.lines().map((l) => l.start?.seq_num ?? l.end),
    [0, 1, { reason: "done", batches: 2 }],
  );
  other.release();
  assert.equal(admission.inflight, 0);
});

test("a first line still arriving past the budget, nothing in flight: the response's 429", async () => {
  const { body, session, admission } = setup();
  const other = admission.body("other", 1 << 20);
  other.take((1 << 20) - 100);
  body.write(`{"records":[{"body":"${"x".repeat(200)}`);
  await assert.rejects(session.open(), (err: unknown) => {
    assert.equal((err as { status: number }).status, 429);
    return true;
  });
  other.release();
  assert.equal(admission.inflight, 0);
});

test("drain stops reading, lets the in-flight batch finish, and ends with reason draining", async () => {
  const { call, body, session, out } = setup();
  body.write(line("a"));
  await session.open();
  const running = session.run(out);
  await waitFor(() => call.written.length === 1);
  session.drain();
  await waitFor(() => call.halfClosed);
  body.write(line("never sent"));
  call.ack(0, 0);
  call.finish(status.OK);
  await running;
  assert.equal(call.written.length, 1);
  assert.deepEqual(
    out.lines().map((l) => l.start?.seq_num ?? l.end),
    [0, { reason: "draining", batches: 1 }],
  );
});

test("an ack for another batch than the oldest unanswered one ends the session: internal, outcome unknown", async () => {
  const { call, body, session, admission, out } = setup(4);
  body.write(line("a"));
  body.write(line("b"));
  body.write(line("c"));
  await session.open();
  const running = session.run(out);
  await waitFor(() => call.written.length === 3);
  call.ack(0, 0);
  await waitFor(() => out.lines().length === 1);
  // Batch 2 answered where batch 1 is due: never reported as line 2's outcome.
  call.ack(2, 5);
  await running;
  assert.equal(call.cancelled, true);
  const lines = out.lines();
  assert.equal(lines.length, 3);
  assert.equal(lines[0].start.seq_num, 0);
  assert.equal(lines[1].code, "internal");
  assert.equal(lines[1].outcome, "unknown");
  assert.equal(lines[1].line, 2);
  assert.match(lines[1].message, /acknowledged batch 2 of this session where batch 1 was due/);
  assert.deepEqual(lines[2], { end: { reason: "error", batches: 2 } });
  assert.equal(admission.inflight, 0);
});

test("a session that sends no line with nothing in flight ends idle, its star session ended", async () => {
  const { call, body, session, admission, out } = setup(2, undefined, {
    idleMs: 20,
    slowConsumerMs: 60_000,
  });
  body.write(line("a"));
  await session.open();
  const running = session.run(out);
  await waitFor(() => call.written.length === 1);
  call.ack(0, 0);
  // The body stays open and sends nothing more.
  await waitFor(() => call.halfClosed);
  call.finish(status.OK);
  await running;
  assert.deepEqual(out.lines().at(-1), { end: { reason: "idle", batches: 1 } });
  assert.equal(admission.inflight, 0);
});

test("acks that keep coming do not hold off the slow-consumer cut: it counts from the stall", async () => {
  const { call, body, session } = setup(16, undefined, { idleMs: 60_000, slowConsumerMs: 300 });
  // A socket that takes one write and never drains.
  const out = new Writable({ highWaterMark: 1, decodeStrings: false, write() {} });
  for (let i = 0; i < 40; i++) body.write(line(String(i)));
  await session.open();
  const running = session.run(out);
  await waitFor(() => call.written.length === 16, { message: "the window's lines sent" });
  // The star answers a line every 50 ms; each ack is one more line the client does not read.
  let acked = 0;
  while (!call.halfClosed && acked < 16) {
    call.ack(acked, acked);
    acked++;
    await new Promise((r) => setTimeout(r, 50));
  }
  // Cut: it sends nothing more and half-closes its star session; its response goes once the
  // star has answered.
  assert.ok(call.halfClosed, "cut while acks still came");
  assert.ok(acked < 16, `cut after ${acked} acks, not when they ran out`);
  call.finish(status.OK);
  await running;
  assert.equal(out.destroyed, true);
});

test("a stall the client read its way out of is forgotten: the next one has the whole time", async () => {
  const { call, body, session } = setup(4, undefined, { idleMs: 60_000, slowConsumerMs: 2000 });
  // A socket whose writes complete when the test says: the client reading.
  const pending: (() => void)[] = [];
  const out = new Writable({
    highWaterMark: 1,
    decodeStrings: false,
    write(_chunk, _encoding, done) {
      pending.push(done);
    },
  });
  const read = () => {
    for (const done of pending.splice(0)) done();
  };
  // Lines come one at a time, the window never full: each waits only on unread acks.
  body.write(line("a"));
  await session.open();
  const running = session.run(out);
  await waitFor(() => call.written.length === 1);
  call.ack(0, 0);
  await waitFor(() => pending.length > 0);
  body.write(line("b"));
  // Line b waits on the unread ack, which the client then reads: b goes.
  await new Promise((resolve) => setImmediate(resolve));
  read();
  await waitFor(() => call.written.length === 2);
  // Longer than the slow-consumer time later, an ack waits unread as line c comes.
  await new Promise((r) => setTimeout(r, 2100));
  call.ack(1, 1);
  await waitFor(() => pending.length > 0);
  body.write(line("c"));
  // Well within the slow-consumer time of this stall, the client reads.
  await new Promise((r) => setTimeout(r, 300));
  read();
  await waitFor(() => call.written.length === 3 || call.halfClosed);
  assert.equal(call.halfClosed, false, "not cut for the stall before");
  const reading = setInterval(read, 5);
  body.end();
  call.ack(2, 2);
  await waitFor(() => call.halfClosed);
  call.finish(status.OK);
  await running;
  clearInterval(reading);
});

test("a client that reads no ack for the slow-consumer time is cut, and told; its star session ends", async () => {
  let told = 0;
  const { call, body, session } = setup(1, undefined, {
    idleMs: 60_000,
    slowConsumerMs: 20,
    onSlowConsumer: () => told++,
  });
  // A socket that takes one write and never drains.
  const out = new Writable({ highWaterMark: 1, decodeStrings: false, write() {} });
  for (const b of ["a", "b", "c"]) body.write(line(b));
  await session.open();
  const running = session.run(out);
  await waitFor(() => call.written.length === 1);
  call.ack(0, 0);
  await waitFor(() => call.halfClosed);
  assert.equal(call.written.length, 1, "no line is sent while the acks go unread");
  call.finish(status.OK);
  await running;
  assert.equal(out.destroyed, true);
  assert.equal(told, 1);
});
