// A subscriber that stops reading while a producer writes 200 MB: the gateway (`src/main.ts`, a
// child process whose RSS is read from /proc) stops reading from the star instead of buffering,
// so its memory stays bounded, and past the slow-consumer limit the client gets `error`
// slow_consumer with its resume id, from which a new session continues with no gap.
import assert from "node:assert/strict";
import { get, type IncomingMessage } from "node:http";
import { after, before, test } from "node:test";
import type { GatewayProcess } from "../harness/gateway-process.ts";
import { call } from "../harness/grpc.ts";
import { metric } from "../harness/metrics.ts";
import { type Stack, startProcessStack } from "../harness/stack.ts";
import type { StarProcess } from "../harness/star-process.ts";
import { waitFor } from "../harness/wait.ts";
import {
  closeSseAgent,
  openSse,
  parseSse,
  readUntil,
  recordsOf,
  type SseEvent,
} from "./sse-client.ts";

const SLOW_CONSUMER_MS = 5_000;
const RECORD = Buffer.alloc(128 * 1024, "x");
const BATCHES = 200;
const PER_BATCH = 8; // 8 x 128 KiB = 1 MiB a batch, 200 MiB in all

let stack: Stack<GatewayProcess>;
let star: StarProcess;
let gw: GatewayProcess;

before(async () => {
  stack = await startProcessStack("nova-slow-", {
    gatewayArgs: ["--slow-consumer-ms", String(SLOW_CONSUMER_MS)],
  });
  ({ star, gw } = stack);
});
after(async () => {
  await stack?.close();
  await closeSseAgent();
});

/** An SSE response read by hand, so the test can stop reading it (and resume). */
function subscribe(url: string): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    get(url, { headers: { accept: "text/event-stream" } }, resolve).on("error", reject);
  });
}

test("a stalled reader keeps gateway memory bounded and gets slow_consumer with its resume id", async (t) => {
  await call(star.client, "CreateBucket", { name: "slow" });
  await call(star.client, "CreateStream", { bucket: "slow", key: "s" });
  const res = await subscribe(`${gw.base}/v1/buckets/slow/streams/s/records?seq_num=0`);
  assert.equal(res.statusCode, 200);
  const events = parseSse(res);
  await readUntil(events, (seen) => seen.some((e) => e.event === "ping"));
  // Stop reading: the async iterator pulls nothing more, so the socket fills up.
  res.pause();

  const baseline = gw.rss();
  let peak = baseline;
  for (let i = 0; i < BATCHES; i += 2) {
    await Promise.all(
      [0, 1].map(() =>
        call(star.client, "Append", {
          bucket: "slow",
          key: "s",
          records: Array.from({ length: PER_BATCH }, () => ({ body: RECORD })),
        }),
      ),
    );
    peak = Math.max(peak, gw.rss());
  }
  await waitFor(async () => (await metric(gw.base, "nova_gateway_slow_consumers_total")) === 1, {
    timeoutMs: 120_000,
    message: "the gateway to give up on the stalled reader",
  });
  peak = Math.max(peak, gw.rss());
  const growth = peak - baseline;
  t.diagnostic(
    `gateway RSS: baseline ${mib(baseline)} MiB, peak ${mib(peak)} MiB, growth ${mib(growth)} MiB while 200 MiB were appended`,
  );
  assert.ok(growth < 400 * 1024 * 1024, `RSS grew by ${mib(growth)} MiB`);
  // The upstream call was released when the session gave up, not when the socket closes.
  await waitFor(async () => (await metric(gw.base, "nova_gateway_upstream_subscribe_calls")) === 0);

  // Reading again, the client gets what was already on its way, then the error.
  const rest: SseEvent[] = [];
  for await (const e of events) rest.push(e);
  const error = rest.at(-1);
  assert.equal(error?.event, "error");
  const body = JSON.parse(error?.data ?? "");
  assert.equal(body.code, "slow_consumer");
  assert.equal(body.retryable, true);
  const received = recordsOf(rest);
  assert.ok(received.length > 0 && received.length < BATCHES * PER_BATCH, `${received.length}`);
  assert.deepEqual(
    received.map(([seq]) => seq),
    received.map((_, i) => i),
  );
  const lastBatch = rest.filter((e) => e.event === "batch").at(-1);
  assert.equal(body.last_event_id, lastBatch?.id);
  t.diagnostic(`the stalled reader got ${received.length} records before slow_consumer`);

  // Resuming from that id continues at the next record.
  const resumed = await openSse(
    `${gw.base}/v1/buckets/slow/streams/s/records?count=${received.length + 1}`,
    {
      "last-event-id": body.last_event_id,
    },
  );
  const next = await readUntil(resumed.events);
  assert.deepEqual(
    recordsOf(next).map(([seq]) => seq),
    [received.length],
  );
  assert.equal(next.at(-1)?.event, "done");
});

function mib(bytes: number): string {
  return (bytes / 1024 / 1024).toFixed(1);
}
