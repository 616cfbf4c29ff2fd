// s2s sessions with S2's own SDK on its default Node transport (s2s over cleartext HTTP/2),
// against a star in its own process; and raw HTTP/2 clients sending what the SDK never would.
import assert from "node:assert/strict";
import http2 from "node:http2";
import { after, before, test } from "node:test";
import {
  AppendInput,
  AppendRecord,
  FencingTokenMismatchError,
  RangeNotSatisfiableError,
  S2,
  S2Error,
  SeqNumMismatchError,
} from "@s2-dev/streamstore";
import { request } from "undici";
import { s2Wire } from "../../src/gateway/s2/index.ts";
import { encodeFrame, type Frame, FrameDecoder } from "../../src/gateway/s2/s2s/index.ts";
import { type Gateway, inProcessGateway } from "../harness/gateway.ts";
import { call, starStats } from "../harness/grpc.ts";
import { http, newStream } from "../harness/http.ts";
import { metric } from "../harness/metrics.ts";
import { freePort } from "../harness/ports.ts";
import { type Stack, startStack } from "../harness/stack.ts";
import { waitFor } from "../harness/wait.ts";

let stack: Stack<Gateway>;
/** The gateway serving now: the stack's, until a restart starts another on its port. */
let gw: Gateway;

/** Closes the gateway serving now (draining its sessions) and starts another on its port. */
async function restartGateway(): Promise<void> {
  const port = Number(new URL(gw.base).port);
  await gw.close();
  gw = await inProcessGateway([stack.star.address], {}, port);
}

before(async () => {
  // Restarted on its port: one below the range the kernel hands out to other tests meanwhile.
  stack = await startStack("s2s-", { port: await freePort() });
  gw = stack.gw;
});

after(async () => {
  // The stack closes its own gateway; one started by a restart is this file's to close.
  if (gw !== stack?.gw) await gw?.close();
  await stack?.close();
});

interface ClientOptions {
  maxAttempts?: number;
  compression?: "zstd" | "gzip";
  /** Default "s". */
  stream?: string;
  /** Default: the gateway serving now. */
  base?: string;
}

/** An SDK stream on the gateway serving now, on the SDK's default transport (s2s). */
function sdkStream(bucket: string, opts: ClientOptions = {}) {
  const client = new S2({
    accessToken: "unused",
    endpoints: { account: opts.base ?? gw.base, basin: opts.base ?? gw.base },
    retry: { maxAttempts: opts.maxAttempts ?? 3 },
    ...(opts.compression ? { compression: opts.compression } : {}),
  });
  return client.basin(bucket).stream(opts.stream ?? "s");
}

/** A new basin (nova bucket) with stream "s", and an SDK stream for it. */
async function newBasin(opts: ClientOptions = {}) {
  const path = await newStream(gw.base);
  const bucket = path.split("/")[3] as string;
  return { path, bucket, stream: sdkStream(bucket, opts) };
}

async function tailOf(path: string): Promise<number> {
  const res = await http(gw.base, "GET", `${path}/records/tail`);
  assert.equal(res.status, 200, res.text);
  return Number(res.json.tail.seq_num);
}

const text = (s: string) => AppendRecord.string({ body: s });

test("an append session with several batches is acked in order, and reads back whole", async () => {
  const { stream } = await newBasin();
  try {
    const session = await stream.appendSession();
    const tickets = [];
    for (let b = 0; b < 5; b++) {
      tickets.push(await session.submit(AppendInput.create([text(`${b}a`), text(`${b}b`)])));
    }
    const acks = await Promise.all(tickets.map((t) => t.ack()));
    await session.close();
    assert.deepEqual(
      acks.map((a) => [a.start.seqNum, a.end.seqNum]),
      [0, 1, 2, 3, 4].map((b) => [2 * b, 2 * b + 2]),
    );
    const read = await stream.readSession({
      start: { from: { seqNum: 0 } },
      stop: { limits: { count: 10 } },
    });
    const bodies: string[] = [];
    for await (const record of read) bodies.push(record.body);
    assert.deepEqual(
      bodies,
      [0, 1, 2, 3, 4].flatMap((b) => [`${b}a`, `${b}b`]),
    );
  } finally {
    await stream.close();
  }
});

test("1,000 one-record batches queued on one session land exactly once, in order", async () => {
  const { bucket, path } = await newBasin();
  // The SDK sends them all at once and resends a batch not acked `requestTimeoutMillis` after it
  // was sent (5 s by default), a second append of it: a deadline a loaded machine may reach, so
  // the SDK gets one none reaches. How soon 1,000 are acked is `npm run bench:s2`'s to measure.
  const stream = new S2({
    accessToken: "unused",
    endpoints: { account: gw.base, basin: gw.base },
    requestTimeoutMillis: 600_000,
  })
    .basin(bucket)
    .stream("s");
  try {
    const session = await stream.appendSession();
    const total = 1000;
    const acks: Promise<{ start: { seqNum: number } }>[] = [];
    for (let i = 0; i < total; i++) {
      acks.push((await session.submit(AppendInput.create([text(`r${i}`)]))).ack());
    }
    const starts = (await Promise.all(acks)).map((a) => a.start.seqNum);
    await session.close();
    assert.deepEqual(
      starts,
      Array.from({ length: total }, (_, i) => i),
    );
    assert.equal(await tailOf(path), total);
  } finally {
    await stream.close();
  }
});

test("a match miss and a fencing miss surface as the SDK's own errors; nothing lands", async () => {
  const { path, stream } = await newBasin();
  try {
    const session = await stream.appendSession();
    await (await session.submit(AppendInput.create([text("x")]))).ack();
    const miss = await session.submit(AppendInput.create([text("y")], { matchSeqNum: 5 }));
    await assert.rejects(
      miss.ack(),
      (err) => err instanceof SeqNumMismatchError && err.expectedSeqNum === 1,
    );
    await session.close().catch(() => {});
    const fence = await http(gw.base, "POST", `${path}/fence`, { fencing_token: "mine" });
    assert.equal(fence.status, 200, fence.text);
    const fenced = await stream.appendSession();
    const wrong = await fenced.submit(AppendInput.create([text("z")], { fencingToken: "theirs" }));
    await assert.rejects(wrong.ack(), FencingTokenMismatchError);
    await fenced.close().catch(() => {});
    assert.equal(await tailOf(path), 1);
  } finally {
    await stream.close();
  }
});

test("a read session follows live appends across a gateway restart, with no gap and no duplicate", async () => {
  const { bucket, stream } = await newBasin({ maxAttempts: 50 });
  const got: number[] = [];
  const bodies: string[] = [];
  let stopAppending = false;
  let appended = 0;
  const producer = (async () => {
    // Appends straight to the star, which does not restart, one record at a time.
    while (!stopAppending) {
      await call(stack.star.client, "Append", {
        bucket,
        key: "s",
        records: [{ body: Buffer.from(`r${appended}`), headers: [] }],
      });
      appended++;
    }
  })();
  const stop = new AbortController();
  try {
    const read = await stream.readSession(
      { start: { from: { seqNum: 0 } } },
      { signal: stop.signal },
    );
    const reader = (async () => {
      for await (const record of read) {
        got.push(record.seqNum);
        bodies.push(record.body);
      }
    })();
    await waitFor(() => got.length >= 20, { message: "records before the restart" });
    await restartGateway();
    const seen = got.length;
    await waitFor(() => got.length >= seen + 20, { message: "records after the restart" });
    stopAppending = true;
    await producer;
    await waitFor(() => got.length >= appended, { message: "every record appended" });
    stop.abort();
    await reader.catch(() => {});
    assert.deepEqual(
      got,
      Array.from({ length: appended }, (_, i) => i),
    );
    assert.deepEqual(
      bodies,
      got.map((i) => `r${i}`),
    );
  } finally {
    stopAppending = true;
    stop.abort();
    await producer.catch(() => {});
    await stream.close();
  }
});

/**
 * The frames of a read session's answer, to its end, or until `until` holds of them (then the
 * client goes away).
 */
function rawRead(
  bucket: string,
  query: string,
  opts: { acceptEncoding?: string; until?: (frames: Frame[]) => boolean } = {},
): Promise<Frame[]> {
  const conn = http2.connect(gw.base);
  return new Promise<Frame[]>((resolve, reject) => {
    const req = conn.request({
      ":path": `/v1/streams/s/records?${query}`,
      "content-type": "s2s/proto",
      "accept-encoding": opts.acceptEncoding ?? "identity",
      "s2-basin": bucket,
    });
    const decoder = new FrameDecoder();
    const frames: Frame[] = [];
    let done = false;
    req.on("data", (chunk: Buffer) => {
      if (done) return;
      frames.push(...decoder.push(chunk));
      if (opts.until?.(frames)) {
        done = true;
        req.close();
        resolve(frames);
      }
    });
    req.on("end", () => resolve(frames));
    req.on("error", reject);
  }).finally(() => conn.close());
}

/** One append session on `conn` sending `body` as it is; the answer's status and frames. */
/** An s2s append session's HTTP/2 stream, its frames collected as they come. */
function appendStream(conn: http2.ClientHttp2Session, bucket: string) {
  const req = conn.request({
    ":method": "POST",
    ":path": "/v1/streams/s/records",
    "content-type": "s2s/proto",
    "s2-basin": bucket,
  });
  const decoder = new FrameDecoder();
  const frames: Frame[] = [];
  req.on("data", (chunk: Buffer) => frames.push(...decoder.push(chunk)));
  return { req, frames };
}

function rawAppend(
  conn: http2.ClientHttp2Session,
  bucket: string,
  body: Uint8Array,
): Promise<{ status: number; frames: Frame[] }> {
  return new Promise((resolve, reject) => {
    const { req, frames } = appendStream(conn, bucket);
    let status = 0;
    req.on("response", (headers) => {
      status = Number(headers[":status"]);
    });
    req.on("end", () => resolve({ status, frames }));
    req.on("error", reject);
    req.end(body);
  });
}

const inputFrame = (bodies: string[]) =>
  encodeFrame({
    terminal: false,
    compression: "none",
    reconnectAdvised: false,
    payload: s2Wire.AppendInput.encode({
      records: bodies.map((b) => ({ headers: [], body: Buffer.from(b) })),
    }),
  });

function terminalOf(frames: Frame[]): { status: number; body: unknown } {
  const last = frames.at(-1);
  assert.ok(last?.terminal, "the session ends with a terminal frame");
  return { status: last.status, body: JSON.parse(Buffer.from(last.body).toString()) };
}

test("an append session rides out a gateway restart: every batch lands once, in order", async () => {
  const { bucket, path } = await newBasin();
  const stream = sdkStream(bucket, { maxAttempts: 50 });
  try {
    const session = await stream.appendSession();
    const total = 60;
    const acks: Promise<unknown>[] = [];
    for (let i = 0; i < total; i++) {
      acks.push((await session.submit(AppendInput.create([text(`a${i}`)]))).ack());
      if (i === total / 2) {
        await acks[0];
        await restartGateway();
      }
    }
    await Promise.all(acks);
    await session.close();
    assert.equal(await tailOf(path), total);
    const read = await stream.readSession({
      start: { from: { seqNum: 0 } },
      stop: { limits: { count: total } },
    });
    const bodies: string[] = [];
    for await (const record of read) bodies.push(record.body);
    assert.deepEqual(
      bodies,
      Array.from({ length: total }, (_, i) => `a${i}`),
    );
  } finally {
    await stream.close();
  }
});

test("a quiet append session gives its star session back and opens another for its next input", async () => {
  const quiet = await inProcessGateway([stack.star.address], { sessionIdleMs: 200 });
  const { bucket, path } = await newBasin();
  const stream = sdkStream(bucket, { base: quiet.base });
  const starSessions = async () => Number((await starStats(stack.star.address)).append_sessions);
  // Closed before the stream, also on failure: the SDK's stream.close() waits for its sessions.
  let session: Awaited<ReturnType<typeof stream.appendSession>> | undefined;
  try {
    session = await stream.appendSession();
    await (await session.submit(AppendInput.create([text("a")]))).ack();
    // Star sessions that ended, as the gateway counts them: one that never opened would leave
    // the star's gauge at 0 too.
    const ended = () =>
      metric(quiet.base, "nova_gateway_upstream_calls_total", 'verb="AppendSession"');
    await waitFor(async () => (await starSessions()) === 0 && (await ended()) === 1, {
      message: "the star session of a quiet s2s session ended",
    });
    const ack = await (await session.submit(AppendInput.create([text("b")]))).ack();
    assert.equal(ack.start.seqNum, 1);
    await session.close();
    assert.equal(await tailOf(path), 2);
    // Its next input opened another star session, which ended too.
    await waitFor(async () => (await ended()) === 2, { message: "the second star session ended" });
  } finally {
    await session?.close().catch(() => {});
    await stream.close();
    await quiet.close();
  }
});

test("bad input ends its session with S2's terminal error; nothing lands, other sessions go on", async () => {
  const { path, bucket, stream } = await newBasin();
  const conn = http2.connect(gw.base);
  // A follower on its own connection, which must see the good appends and nothing else.
  const stop = new AbortController();
  const read = await stream.readSession(
    { start: { from: { seqNum: 0 } } },
    { signal: stop.signal },
  );
  try {
    const seen: string[] = [];
    const follower = (async () => {
      for await (const record of read) {
        seen.push(record.body);
        if (record.body === "last") return;
      }
    })();
    const over = 2 * 1024 * 1024 + 1;
    const cases: [string, Uint8Array, number, string][] = [
      ["malformed frame", Uint8Array.of(0, 0, 1, 0x60), 400, "bad_frame"],
      [
        "oversized frame",
        Uint8Array.of(over >>> 16, (over >>> 8) & 0xff, over & 0xff, 0),
        400,
        "bad_frame",
      ],
      [
        "bad protobuf",
        encodeFrame({
          terminal: false,
          compression: "none",
          reconnectAdvised: false,
          payload: Uint8Array.of(0xff, 0xff),
        }),
        400,
        "bad_proto",
      ],
      [
        "bad gzip",
        encodeFrame({
          terminal: false,
          compression: "gzip",
          reconnectAdvised: false,
          payload: Uint8Array.of(1, 2, 3),
        }),
        400,
        "bad_frame",
      ],
      ["no records", inputFrame([]), 422, "invalid"],
      [
        "a terminal frame from the client",
        encodeFrame({ terminal: true, status: 200, body: new Uint8Array() }),
        400,
        "bad_frame",
      ],
    ];
    for (const [name, bad, status, code] of cases) {
      const answer = await rawAppend(
        conn,
        bucket,
        Buffer.concat([inputFrame([name]), bad, inputFrame(["never"])]),
      );
      assert.equal(answer.status, 200, name);
      // The input before the bad bytes is acked; the terminal frame follows; nothing after lands.
      assert.equal(answer.frames.length, 2, name);
      assert.equal(answer.frames[0]?.terminal, false, name);
      const terminal = terminalOf(answer.frames);
      assert.equal(terminal.status, status, name);
      assert.equal((terminal.body as { code: string }).code, code, name);
    }
    // A body that ends inside a frame: nothing can follow it.
    const cut = await rawAppend(
      conn,
      bucket,
      Buffer.concat([inputFrame(["cut-off frame"]), inputFrame(["never"]).subarray(0, 6)]),
    );
    assert.equal(cut.frames.length, 2);
    assert.deepEqual(terminalOf(cut.frames).status, 400);
    // The same connection still serves sessions.
    const good = await rawAppend(conn, bucket, inputFrame(["last"]));
    assert.deepEqual(
      good.frames.map((f) => f.terminal),
      [false],
    );
    await follower;
    assert.deepEqual(seen, [...cases.map(([name]) => name), "cut-off frame", "last"]);
    assert.equal(await tailOf(path), cases.length + 2);
  } finally {
    conn.close();
    stop.abort();
    await stream.close();
  }
});

test("a session the gateway ended while its client still sends is closed, not left open", async () => {
  const { bucket } = await newBasin();
  const conn = http2.connect(gw.base);
  try {
    const { req, frames } = appendStream(conn, bucket);
    const closed = new Promise<number>((resolve) =>
      req.on("close", () => resolve(req.rstCode ?? -1)),
    );
    req.on("error", () => {});
    // A bad frame, and the request side left open, as a client that goes on sending would.
    req.write(Buffer.concat([inputFrame(["kept"]), Uint8Array.of(0, 0, 1, 0x60)]));
    const code = await Promise.race([
      closed,
      new Promise<never>((_, reject) => {
        setTimeout(
          () => reject(new Error("the ended session's stream stayed open")),
          10_000,
        ).unref();
      }),
    ]);
    assert.equal(code, http2.constants.NGHTTP2_NO_ERROR);
    assert.equal(terminalOf(frames).status, 400);
  } finally {
    // Not close(), which waits for a stream left open.
    conn.destroy();
  }
});

test("an s2s append session over HTTP/1.1 is refused, 501 in S2's shape; nothing lands", async () => {
  const { path, bucket } = await newBasin();
  const res = await request(`${gw.base}/v1/streams/s/records`, {
    method: "POST",
    headers: { "content-type": "s2s/proto", "s2-basin": bucket },
    body: Buffer.from(inputFrame(["h1"])),
  });
  assert.equal(res.statusCode, 501);
  assert.equal(((await res.body.json()) as { code: string }).code, "not_implemented");
  assert.equal(await tailOf(path), 0);
});

test("sessions compress both ways with zstd and gzip; a bytes-bounded read ends at its bound", async () => {
  for (const compression of ["zstd", "gzip"] as const) {
    const { path, bucket, stream } = await newBasin({ compression });
    try {
      // 4 KiB of text per record: past S2's 1 KiB threshold, so frames go compressed.
      const big = (i: number) => `${i}`.padEnd(4096, "x");
      const session = await stream.appendSession();
      const tickets = [];
      for (let i = 0; i < 4; i++)
        tickets.push(await session.submit(AppendInput.create([text(big(i))])));
      await Promise.all(tickets.map((t) => t.ack()));
      await session.close();
      assert.equal(await tailOf(path), 4);
      // Metered, a record is 8 + 4096 bytes: a bound of three records less one byte gets two.
      const read = await stream.readSession({
        start: { from: { seqNum: 0 } },
        stop: { limits: { bytes: 3 * (8 + 4096) - 1 } },
      });
      const got: string[] = [];
      for await (const record of read) got.push(record.body);
      assert.deepEqual(got, [big(0), big(1)], compression);
      // On the wire, the records' frame is compressed as the client accepts.
      const frames = await rawRead(bucket, "seq_num=0&count=2", { acceptEncoding: compression });
      assert.equal(frames[0]?.terminal, false);
      assert.equal(frames[0]?.terminal === false && frames[0].compression, compression);
    } finally {
      await stream.close();
    }
  }
});

test("a following read session sends a heartbeat with the tail as it catches up", async () => {
  const { bucket, path } = await newBasin();
  await http(gw.base, "POST", `${path}/records`, { records: [{ body: "a" }, { body: "b" }] });
  const batches = (frames: Frame[]) =>
    frames.flatMap((f) => (f.terminal ? [] : [s2Wire.ReadBatch.decode(f.payload)]));
  const frames = await rawRead(bucket, "seq_num=0", {
    until: (got) => batches(got).some((b) => b.records.length === 0),
  });
  assert.ok(frames.every((f) => !f.terminal));
  const read = batches(frames);
  const beat = read.at(-1);
  assert.deepEqual(
    read.flatMap((b) => b.records.map((r) => r.body.toString())),
    ["a", "b"],
  );
  assert.deepEqual(beat?.records, []);
  assert.equal(beat?.tail?.seq_num, "2");
});

test("a read of a missing stream, or past the tail, fails as S2 says before any frame", async () => {
  const { bucket, stream } = await newBasin({ maxAttempts: 1 });
  const missing = sdkStream(bucket, { maxAttempts: 1, stream: "nope" });
  try {
    await assert.rejects(
      (async () => {
        for await (const _ of await missing.readSession({ start: { from: { seqNum: 0 } } })) {
          // Nothing is expected.
        }
      })(),
      (err: unknown) => err instanceof S2Error && err.status === 404,
    );
    await assert.rejects(
      (async () => {
        for await (const _ of await stream.readSession({ start: { from: { seqNum: 5 } } })) {
          // Nothing is expected.
        }
      })(),
      RangeNotSatisfiableError,
    );
  } finally {
    await missing.close();
    await stream.close();
  }
});

test("a read session S2 would refuse is 416 before any frame; count=0 reads nothing", async () => {
  const { bucket, path, stream } = await newBasin({ maxAttempts: 1 });
  try {
    await http(gw.base, "POST", `${path}/records`, { records: [{ body: "a" }, { body: "b" }] });
    const drain = async (args: Parameters<typeof stream.readSession>[0]) => {
      for await (const _ of await stream.readSession(args)) {
        // Nothing is expected.
      }
    };
    // At the tail bounded without wait, and a time after the tail's: S2's 416.
    await assert.rejects(
      drain({ start: { from: { seqNum: 2 } }, stop: { limits: { count: 5 } } }),
      RangeNotSatisfiableError,
    );
    await assert.rejects(
      drain({ start: { from: { timestamp: Date.now() + 3_600_000 } } }),
      RangeNotSatisfiableError,
    );
    // count=0 (what the SDK's retry sends once everything asked for came): no record, an end.
    const frames = await rawRead(bucket, "seq_num=0&count=0");
    const records = frames.flatMap((f) =>
      f.terminal ? [] : s2Wire.ReadBatch.decode(f.payload).records,
    );
    assert.deepEqual(records, []);
    assert.ok(frames.every((f) => !f.terminal));
  } finally {
    await stream.close();
  }
});
