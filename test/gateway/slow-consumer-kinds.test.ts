// Every face's subscription cuts a client that reads nothing for --slow-consumer-ms, and counts
// it in nova_gateway_slow_consumers_total by session kind. The client is an HTTP/2 connection
// that grants a window of 0: the gateway may send headers, never bytes, so a few large records
// fill the response's buffer at once.
import assert from "node:assert/strict";
import { once } from "node:events";
import http2 from "node:http2";
import { after, before, test } from "node:test";
import type { Gateway } from "../harness/gateway.ts";
import { http, newStream } from "../harness/http.ts";
import { count } from "../harness/metrics.ts";
import { type Stack, startStack } from "../harness/stack.ts";
import { waitFor } from "../harness/wait.ts";

const BIG = "x".repeat(200_000);

let stack: Stack<Gateway>;
let gw: Gateway;

before(async () => {
  stack = await startStack("nova-slow-kinds-", { gateway: { slowConsumerMs: 300 } });
  gw = stack.gw;
});
after(() => stack?.close());

/**
 * Opens `path` on a connection that never reads, until `kind`'s count went up by one: the cut.
 * The connection then goes (what the gateway wrote after the cut never could).
 */
async function stalled(path: string, headers: Record<string, string>, kind: string) {
  const counter = gw.metrics.slowConsumers;
  const before = await count(counter, { kind });
  const session = http2.connect(gw.base, { settings: { initialWindowSize: 0 } });
  session.on("error", () => {});
  try {
    const stream = session.request({ ":path": path, ...headers });
    stream.on("error", () => {});
    const [answer] = (await once(stream, "response")) as [http2.IncomingHttpHeaders];
    assert.equal(answer[":status"], 200);
    await waitFor(async () => (await count(counter, { kind })) === before + 1, {
      message: `slow_consumers_total{kind="${kind}"} counted`,
    });
  } finally {
    session.destroy();
  }
}

async function newStreamWithBigRecords(): Promise<{ path: string; bucket: string }> {
  const path = await newStream(gw.base);
  const records = Array.from({ length: 4 }, () => ({ body: BIG }));
  assert.equal((await http(gw.base, "POST", `${path}/records`, { records })).status, 200);
  return { path, bucket: path.split("/")[3] ?? "" };
}

test("nova's SSE subscription", async () => {
  const { path } = await newStreamWithBigRecords();
  await stalled(`${path}/records?seq_num=0`, { accept: "text/event-stream" }, "sse");
});

test("S2's SSE read session", async () => {
  const { bucket } = await newStreamWithBigRecords();
  const headers = { accept: "text/event-stream", "s2-basin": bucket };
  await stalled("/v1/streams/s/records?seq_num=0", headers, "s2_sse");
});

test("S2's s2s read session", async () => {
  const { bucket } = await newStreamWithBigRecords();
  const headers = { "content-type": "s2s/proto", "s2-basin": bucket };
  await stalled("/v1/streams/s/records?seq_num=0", headers, "s2s_read");
});

test("the Durable Streams SSE read", async () => {
  const url = `${gw.base}/ds/v1/stream/slow-kinds`;
  const text = { "content-type": "text/plain" };
  assert.equal((await fetch(url, { method: "PUT", headers: text })).status, 201);
  for (let i = 0; i < 4; i++) {
    assert.equal((await fetch(url, { method: "POST", headers: text, body: BIG })).status, 204);
  }
  const headers = { accept: "text/event-stream" };
  await stalled("/ds/v1/stream/slow-kinds?offset=-1&live=sse", headers, "ds_sse");
});
