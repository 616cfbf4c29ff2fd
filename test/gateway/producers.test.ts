// Idempotent producers and closing a stream over real sockets (docs/producers.md): every answer
// of the nova REST API, NDJSON sessions, SSE, long-polls, a star killed with SIGKILL between an
// append and its retry, and four producers sending every batch twice through a gateway that is
// SIGKILLed and restarted mid-run.
import assert from "node:assert/strict";
import { Readable } from "node:stream";
import { after, before, test } from "node:test";
import { request } from "undici";
import { type Gateway, inProcessGateway } from "../harness/gateway.ts";
import { gatewayProcess } from "../harness/gateway-process.ts";
import { http, newStream } from "../harness/http.ts";
import { freePort } from "../harness/ports.ts";
import { type Stack, startStack } from "../harness/stack.ts";
import { startStarProcess } from "../harness/star-process.ts";
import { openSse } from "./sse-client.ts";

let stack: Stack<Gateway>;
let gw: Gateway;

before(async () => {
  stack = await startStack("nova-producers-");
  gw = stack.gw;
});
after(() => stack?.close());

const producer = (id: string, epoch: bigint | number, seq: bigint | number) => ({
  "nova-producer-id": id,
  "nova-producer-epoch": String(epoch),
  "nova-producer-seq": String(seq),
});

const batch = (...bodies: string[]) => ({ records: bodies.map((body) => ({ body })) });

async function bodies(base: string, path: string): Promise<string[]> {
  const res = await http(base, "GET", `${path}/records?seq_num=0`);
  assert.equal(res.status, 200, res.text);
  return res.json.records.map((r: { body: string }) => r.body);
}

test("a retry answers 200 with the original ack and nova-producer-duplicate; the stream has it once", async () => {
  const s = await newStream(gw.base);
  const first = await http(gw.base, "POST", `${s}/records`, batch("a"), producer("p", 1, 0));
  assert.equal(first.status, 200, first.text);
  assert.equal(first.headers["nova-producer-duplicate"], undefined);
  assert.equal(first.json.duplicate, undefined);
  const second = await http(gw.base, "POST", `${s}/records`, batch("b", "c"), producer("p", 1, 1));
  const retry = await http(gw.base, "POST", `${s}/records`, batch("b", "c"), producer("p", 1, 1));
  assert.equal(retry.status, 200, retry.text);
  assert.equal(retry.headers["nova-producer-duplicate"], "true");
  assert.deepEqual([retry.json.start, retry.json.end], [second.json.start, second.json.end]);
  assert.equal(retry.json.duplicate, true);
  const older = await http(gw.base, "POST", `${s}/records`, batch("a"), producer("p", 1, 0));
  assert.deepEqual(older.json.start, first.json.start);
  assert.deepEqual(await bodies(gw.base, s), ["a", "b", "c"]);
});

test("a gap is 409 producer_seq_gap, an old epoch 403 producer_fenced past 2^53, an unknown producer's late seq a gap", async () => {
  const s = await newStream(gw.base);
  const big = 2n ** 53n + 1n;
  assert.equal(
    (await http(gw.base, "POST", `${s}/records`, batch("a"), producer("p", big, 0))).status,
    200,
  );
  const gap = await http(gw.base, "POST", `${s}/records`, batch("x"), producer("p", big, 3));
  assert.equal(gap.status, 409, gap.text);
  assert.deepEqual(
    [
      gap.json.code,
      gap.json.expected_seq,
      gap.json.received_seq,
      gap.json.unknown_producer,
      gap.json.retryable,
    ],
    ["producer_seq_gap", 1, 3, false, false],
  );
  const fenced = await http(
    gw.base,
    "POST",
    `${s}/records?int64=string`,
    batch("x"),
    producer("p", big - 1n, 1),
  );
  assert.equal(fenced.status, 403, fenced.text);
  assert.deepEqual(
    [fenced.json.code, fenced.json.current_epoch],
    ["producer_fenced", big.toString()],
  );
  const unknown = await http(gw.base, "POST", `${s}/records`, batch("x"), producer("q", 0, 7));
  assert.equal(unknown.status, 409, unknown.text);
  assert.deepEqual([unknown.json.expected_seq, unknown.json.unknown_producer], [0, true]);
  // A higher epoch starts at 0 and fences the older one.
  assert.equal(
    (await http(gw.base, "POST", `${s}/records`, batch("b"), producer("p", big + 1n, 0))).status,
    200,
  );
  assert.equal(
    (await http(gw.base, "POST", `${s}/records`, batch("x"), producer("p", big, 1))).status,
    403,
  );
  assert.deepEqual(await bodies(gw.base, s), ["a", "b"]);
});

test("a seq acknowledged before the last 8 is 409 producer_seq_stale with last_seq; nothing appended", async () => {
  const s = await newStream(gw.base);
  for (let seq = 0; seq < 10; seq++) {
    const ack = await http(
      gw.base,
      "POST",
      `${s}/records`,
      batch(`b${seq}`),
      producer("p", 0, seq),
    );
    assert.equal(ack.status, 200, ack.text);
  }
  // Seq 2 is the oldest of the last 8 acks: still a duplicate. Seq 1 is older.
  const remembered = await http(gw.base, "POST", `${s}/records`, batch("b2"), producer("p", 0, 2));
  assert.deepEqual([remembered.status, remembered.json.duplicate], [200, true]);
  const stale = await http(gw.base, "POST", `${s}/records`, batch("b1"), producer("p", 0, 1));
  assert.equal(stale.status, 409, stale.text);
  assert.deepEqual(
    [stale.json.code, stale.json.last_seq, stale.json.retryable],
    ["producer_seq_stale", 9, false],
  );
  assert.equal((await bodies(gw.base, s)).length, 10);
});

test("bad producer headers are 400 bad_header naming the header; nothing is appended", async () => {
  const s = await newStream(gw.base);
  const cases: [Record<string, string>, string][] = [
    [{ "nova-producer-id": "p", "nova-producer-epoch": "0" }, "nova-producer-seq"],
    [producer("", 0, 0), "nova-producer-id"],
    [producer("x".repeat(129), 0, 0), "nova-producer-id"],
    [producer("p", "18446744073709551616" as unknown as number, 0), "nova-producer-epoch"],
    [producer("p", 0, "-1" as unknown as number), "nova-producer-seq"],
  ];
  for (const [headers, field] of cases) {
    const res = await http(gw.base, "POST", `${s}/records`, batch("x"), headers);
    assert.equal(res.status, 400, `${JSON.stringify(headers)}: ${res.text}`);
    assert.equal(res.json.code, "bad_header");
    assert.match(res.json.message, new RegExp(field));
  }
  // Sent twice: Node joins the two ids into one, "a, b", which is a valid id.
  const twice = await request(`${gw.base}${s}/records`, {
    method: "POST",
    headers: [
      ...["content-type", "application/json", "nova-producer-epoch", "0", "nova-producer-seq", "0"],
      ...["nova-producer-id", "a", "nova-producer-id", "b"],
    ],
    body: JSON.stringify(batch("x")),
  });
  const refused = JSON.parse(await twice.body.text());
  assert.deepEqual(
    [twice.statusCode, refused.code, refused.field],
    [400, "bad_header", "nova-producer-id"],
  );
  assert.deepEqual(await bodies(gw.base, s), []);
});

/** One NDJSON session; its status and answer lines. */
async function session(path: string, lines: string[], headers: Record<string, string>) {
  const res = await request(`${gw.base}${path}/records`, {
    method: "POST",
    headers: { "content-type": "application/x-ndjson", ...headers },
    body: Readable.from(lines),
  });
  const text = await res.body.text();
  return {
    status: res.statusCode,
    lines: text
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l)),
  };
}

test("an NDJSON session's line n takes seq + n; the same session sent again appends nothing", async () => {
  const s = await newStream(gw.base);
  const lines = ["a", "b", "c"].map((b) => `${JSON.stringify(batch(b))}\n`);
  const once = await session(s, lines, producer("p", 0, 5 - 5));
  assert.equal(once.status, 200);
  assert.deepEqual(
    once.lines.slice(0, 3).map((l) => [l.start.seq_num, l.duplicate]),
    [
      [0, undefined],
      [1, undefined],
      [2, undefined],
    ],
  );
  const again = await session(s, lines, producer("p", 0, 0));
  assert.deepEqual(
    again.lines.slice(0, 3).map((l) => [l.start.seq_num, l.duplicate]),
    [
      [0, true],
      [1, true],
      [2, true],
    ],
  );
  assert.deepEqual(again.lines[3], { end: { reason: "done", batches: 3 } });
  // The unary seq after the session's last line goes on from there.
  const next = await http(gw.base, "POST", `${s}/records`, batch("d"), producer("p", 0, 3));
  assert.equal(next.status, 200, next.text);
  const gap = await session(s, lines.slice(0, 1), producer("p", 0, 9));
  assert.deepEqual(
    [gap.status, gap.lines[0].code, gap.lines[0].expected_seq],
    [200, "producer_seq_gap", 4],
  );
  assert.deepEqual(await bodies(gw.base, s), ["a", "b", "c", "d"]);
});

test("closing: a final batch, then appends refused with stream_closed; reads, tail and GetStream say closed", async () => {
  const s = await newStream(gw.base);
  assert.equal((await http(gw.base, "POST", `${s}/records`, batch("a"))).status, 200);
  const closed = await http(gw.base, "POST", `${s}/close`, batch("z"), producer("p", 0, 0));
  assert.equal(closed.status, 200, closed.text);
  assert.deepEqual(
    [closed.json.start.seq_num, closed.json.end.seq_num, closed.json.closed],
    [1, 2, true],
  );
  // The final batch's retry is a duplicate, not a refusal.
  const retry = await http(gw.base, "POST", `${s}/close`, batch("z"), producer("p", 0, 0));
  assert.deepEqual([retry.status, retry.json.duplicate, retry.json.closed], [200, true, true]);
  const refused = await http(gw.base, "POST", `${s}/records`, batch("x"));
  assert.equal(refused.status, 409, refused.text);
  assert.deepEqual(
    [refused.json.code, refused.json.tail.seq_num, refused.json.retryable],
    ["stream_closed", 2, false],
  );
  const withBody = await http(gw.base, "POST", `${s}/close`, batch("y"));
  assert.deepEqual([withBody.status, withBody.json.code], [409, "stream_closed"]);
  const idempotent = await http(gw.base, "POST", `${s}/close`);
  assert.deepEqual(
    [idempotent.status, idempotent.json.closed, idempotent.json.end.seq_num],
    [200, true, 2],
  );
  // An empty body said to be JSON (as many clients always send) is a close without one.
  const empty = await request(`${gw.base}${s}/close`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: "",
  });
  assert.equal(empty.statusCode, 200, await empty.body.text());
  const read = await http(gw.base, "GET", `${s}/records?seq_num=0`);
  assert.deepEqual([read.json.records.length, read.json.closed], [2, true]);
  const partial = await http(gw.base, "GET", `${s}/records?seq_num=0&count=1`);
  assert.equal(partial.json.closed, undefined);
  assert.equal((await http(gw.base, "GET", `${s}/records/tail`)).json.closed, true);
  const [bucket] = s.split("/").slice(3, 4);
  const got = await http(gw.base, "GET", `/v1/buckets/${bucket}/streams/s`);
  assert.equal(got.json.closed, true);
  // A long-poll at the tail of a closed stream answers at once.
  const poll = await http(gw.base, "GET", `${s}/records?seq_num=2&wait=30`);
  assert.deepEqual([poll.status, poll.json.records.length, poll.json.closed], [200, 0, true]);
  // A long-poll's page that reaches the tail says so too; one that stops short does not.
  const pollAll = await http(gw.base, "GET", `${s}/records?seq_num=0&wait=30`);
  assert.deepEqual([pollAll.json.records.length, pollAll.json.closed], [2, true]);
  const pollPart = await http(gw.base, "GET", `${s}/records?seq_num=0&count=1&wait=30`);
  assert.deepEqual([pollPart.json.records.length, pollPart.json.closed], [1, undefined]);
  // Deleting still works.
  assert.equal((await http(gw.base, "DELETE", `/v1/buckets/${bucket}/streams/s`)).status, 202);
});

test("a close is fenced as an append is; match_seq_num without records is 400", async () => {
  const s = await newStream(gw.base);
  assert.equal((await http(gw.base, "POST", `${s}/fence`, { fencing_token: "w1" })).status, 200);
  const unfenced = await http(gw.base, "POST", `${s}/close`, { fencing_token: "other" });
  assert.deepEqual([unfenced.status, unfenced.json.code], [412, "fencing_token_mismatch"]);
  const match = await http(gw.base, "POST", `${s}/close`, {
    match_seq_num: 0,
    fencing_token: "w1",
  });
  assert.deepEqual(
    [match.status, match.json.code, match.json.field],
    [400, "invalid_argument", "match_seq_num"],
  );
  assert.equal((await http(gw.base, "GET", `${s}/records/tail`)).json.closed, undefined);
  const closed = await http(gw.base, "POST", `${s}/close`, { fencing_token: "w1" });
  assert.deepEqual([closed.status, closed.json.closed], [200, true]);
});

test("a close without records from a producer's fenced epoch is 403; the current epoch closes", async () => {
  const s = await newStream(gw.base);
  const ok = await http(gw.base, "POST", `${s}/records`, batch("a"), producer("z", 2, 0));
  assert.equal(ok.status, 200, ok.text);
  const zombie = await http(gw.base, "POST", `${s}/close`, undefined, producer("z", 1, 5));
  assert.deepEqual([zombie.status, zombie.json.code], [403, "producer_fenced"]);
  assert.equal((await http(gw.base, "GET", `${s}/records/tail`)).json.closed, undefined);
  const closed = await http(gw.base, "POST", `${s}/close`, undefined, producer("z", 2, 1));
  assert.deepEqual([closed.status, closed.json.closed], [200, true]);
  // Closed already, a close is a no-op whoever sends it.
  const again = await http(gw.base, "POST", `${s}/close`, undefined, producer("z", 1, 5));
  assert.deepEqual([again.status, again.json.closed], [200, true]);
});

test("closing under SSE subscribers, a long-poll and an NDJSON session ends each of them", async () => {
  const s = await newStream(gw.base);
  assert.equal((await http(gw.base, "POST", `${s}/records`, batch("a"))).status, 200);
  const live = await openSse(`${gw.base}${s}/records?seq_num=0`, { accept: "text/event-stream" });
  const fromTail = await openSse(`${gw.base}${s}/records`, { accept: "text/event-stream" });
  const poll = http(gw.base, "GET", `${s}/records?seq_num=1&wait=30`);
  const ndjson = new Readable({ read() {} });
  const sessionRes = request(`${gw.base}${s}/records`, {
    method: "POST",
    headers: { "content-type": "application/x-ndjson" },
    body: ndjson,
  });
  ndjson.push(`${JSON.stringify(batch("n"))}\n`);
  const events = async (sse: typeof live) => {
    const out: { event: string; data: string }[] = [];
    for await (const e of sse.events) if (e.event !== "retry" && e.event !== "ping") out.push(e);
    return out;
  };
  const liveEvents = events(live);
  const tailEvents = events(fromTail);
  // Wait for the session's first ack before closing, so its first line surely landed.
  const res = await sessionRes;
  const reader = res.body[Symbol.asyncIterator]();
  const firstAck = JSON.parse(
    Buffer.from((await reader.next()).value)
      .toString()
      .split("\n")[0] as string,
  );
  assert.equal(firstAck.start.seq_num, 1);
  const closed = await http(gw.base, "POST", `${s}/close`, batch("z"));
  assert.equal(closed.status, 200, closed.text);
  ndjson.push(`${JSON.stringify(batch("late"))}\n`);
  ndjson.push(null);
  let rest = "";
  for (let step = await reader.next(); !step.done; step = await reader.next())
    rest += Buffer.from(step.value).toString();
  const restLines = rest
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l));
  assert.equal(restLines[0].code, "stream_closed");
  assert.equal(restLines.at(-1).end.reason, "error");

  const seen = await liveEvents;
  const batches = seen
    .filter((e) => e.event === "batch")
    .flatMap((e) => JSON.parse(e.data).records);
  assert.deepEqual(
    batches.map((r: { body: string }) => r.body),
    ["a", "n", "z"],
  );
  assert.deepEqual(seen.at(-1)?.event, "done");
  assert.deepEqual(JSON.parse(seen.at(-1)?.data as string), {
    next: { seq_num: 3, timestamp_ms: JSON.parse(seen.at(-1)?.data as string).next.timestamp_ms },
    closed: true,
  });
  const tail = await tailEvents;
  assert.equal(tail.at(-1)?.event, "done");
  assert.equal(JSON.parse(tail.at(-1)?.data as string).closed, true);
  const polled = await poll;
  assert.equal(polled.status, 200);
  assert.deepEqual(
    polled.json.records.map((r: { body: string }) => r.body),
    ["n"],
  );
  // Resuming at the end of a closed stream: 204, so EventSource stops reconnecting.
  const lastId = seen.filter((e) => e.event === "batch").at(-1) as { id?: string };
  const resumed = await openSse(`${gw.base}${s}/records`, {
    accept: "text/event-stream",
    "last-event-id": lastId.id as string,
  });
  assert.equal(resumed.status, 204);
  resumed.close();
});

test("a retry after the star was SIGKILLed and restarted is still recognised", async () => {
  const dir = stack.dir;
  // Restarted on its port: one below the range the kernel hands out to other tests meanwhile.
  const star = await startStarProcess(["--data-dir", `${dir}/kill`], {
    listen: `127.0.0.1:${await freePort()}`,
  });
  let restarted: Awaited<ReturnType<typeof startStarProcess>> | undefined;
  let own: Gateway | undefined;
  try {
    own = await inProcessGateway([star.address]);
    const s = await newStream(own.base);
    const ack = await http(own.base, "POST", `${s}/records`, batch("a"), producer("p", 2, 0));
    assert.equal(ack.status, 200, ack.text);
    await star.proc.kill("SIGKILL");
    star.client.close();
    restarted = await startStarProcess(["--data-dir", `${dir}/kill`], { listen: star.address });
    const retry = await http(own.base, "POST", `${s}/records`, batch("a"), producer("p", 2, 0));
    assert.equal(retry.status, 200, retry.text);
    assert.equal(retry.headers["nova-producer-duplicate"], "true");
    assert.deepEqual(retry.json.start, ack.json.start);
    assert.deepEqual(await bodies(own.base, s), ["a"]);
  } finally {
    await own?.close();
    restarted?.client.close();
    await restarted?.proc.kill("SIGTERM");
    await star.proc.kill("SIGKILL");
  }
});

test("4 producers sending every batch twice, concurrently, through a gateway SIGKILLed and restarted: each batch once", async () => {
  let gateway = await gatewayProcess([stack.star.address]);
  const BATCHES = 60;
  let killed = 0;
  try {
    const s = await newStream(gateway.base);
    const send = async (p: number, n: number) => {
      // Bounded: a gateway that never comes back fails the test instead of holding it.
      const deadline = performance.now() + 60_000;
      while (performance.now() < deadline) {
        const res = await http(
          gateway.base,
          "POST",
          `${s}/records`,
          batch(`${p}:${n}`),
          producer(`w${p}`, 0, n),
        ).catch(
          // The gateway was killed under this request, or is not back yet: send it again.
          () => undefined,
        );
        if (res?.status === 200) return;
        if (res) assert.ok(res.status >= 500, res.text);
        // A short backoff while the gateway restarts.
        await new Promise((r) => setTimeout(r, 20));
      }
      assert.fail(`batch ${p}:${n} was not acked within 60 s`);
    };
    const producers = [0, 1, 2, 3].map(async (p) => {
      for (let n = 0; n < BATCHES; n++) {
        await Promise.all([send(p, n), send(p, n)]);
        if (p === 0 && (n === 20 || n === 40)) {
          await gateway.proc.kill("SIGKILL");
          killed++;
          gateway = await gatewayProcess([stack.star.address]);
        }
      }
    });
    await Promise.all(producers);
    assert.equal(killed, 2);
    const got = await bodies(gateway.base, s);
    assert.equal(got.length, 4 * BATCHES);
    const expected = [0, 1, 2, 3].flatMap((p) =>
      Array.from({ length: BATCHES }, (_, n) => `${p}:${n}`),
    );
    assert.deepEqual([...got].sort(), [...expected].sort());
    for (const p of [0, 1, 2, 3]) {
      const own = got.filter((b) => b.startsWith(`${p}:`));
      assert.deepEqual(
        own,
        Array.from({ length: BATCHES }, (_, n) => `${p}:${n}`),
      );
    }
  } finally {
    await gateway.close();
  }
});
