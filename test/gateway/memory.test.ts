// Memory returns after a burst (`src/main.ts` as a child process, its memory read from
// /metrics): once a burst of large appends, or of SSE subscribers, is over, the JS heap and the
// buffer memory the gateway holds come back to within --gc-slack-mb of where they were before,
// without any further traffic beyond the scrapes that read them.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { Pool } from "undici";
import type { GatewayProcess } from "../harness/gateway-process.ts";
import { append, newStream } from "../harness/http.ts";
import { metric } from "../harness/metrics.ts";
import { type Stack, startProcessStack } from "../harness/stack.ts";
import { waitFor } from "../harness/wait.ts";
import { closeSseAgent, openSse, readUntil } from "./sse-client.ts";

const SLACK_MB = 16;
const SUBSCRIBERS = 1000;
const MiB = 1024 * 1024;

let stack: Stack<GatewayProcess>;
let gw: GatewayProcess;

before(async () => {
  stack = await startProcessStack("nova-memory-", {
    // Leftovers after 2 s rather than 10: the test waits for them.
    gatewayArgs: ["--gc-slack-mb", String(SLACK_MB), "--gc-leftover-ms", "2000"],
  });
  gw = stack.gw;
});
after(async () => {
  await stack?.close();
  await closeSseAgent();
});

/** The JS heap in use and the memory of Buffers, as the gateway reports them. */
async function held(): Promise<number> {
  return (
    (await metric(gw.base, "nodejs_heap_size_used_bytes")) +
    (await metric(gw.base, "nodejs_external_memory_bytes"))
  );
}

/** Waits until what the gateway holds is back within the slack of `baseline`. */
async function backTo(baseline: number, what: string): Promise<void> {
  const seen: number[] = [];
  try {
    await waitFor(
      async () => {
        seen.push(await held());
        return (seen.at(-1) as number) <= baseline + SLACK_MB * MiB;
      },
      { timeoutMs: 60_000, intervalMs: 250 },
    );
  } catch (err) {
    const mib = (n: number) => Math.round(n / MiB);
    assert.fail(
      `${what}: held memory did not come back within ${SLACK_MB} MiB of ${mib(baseline)} MiB; it went ${seen.slice(-8).map(mib).join(", ")} MiB (${String(err)})`,
    );
  }
}

test("after a burst of 6 MiB appends, the memory they held is given back", async () => {
  const stream = await newStream(gw.base);
  await append(gw.base, stream, ["warm"]);
  const baseline = await held();
  // 8 records of 768 KiB, sent as base64: an 8 MiB body.
  const record = { body: Buffer.alloc(768 * 1024, 1).toString("base64") };
  const body = JSON.stringify({ records: Array.from({ length: 8 }, () => record) });
  const pool = new Pool(gw.base, { connections: 8 });
  let peak = baseline;
  try {
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        for (let i = 0; i < 6; i++) {
          const res = await pool.request({
            method: "POST",
            path: `${stream}/records?format=base64`,
            headers: { "content-type": "application/json" },
            body,
          });
          const text = await res.body.text();
          assert.ok(res.statusCode === 200 || res.statusCode === 429, text);
          peak = Math.max(peak, await held());
        }
      }),
    );
  } finally {
    await pool.close();
  }
  assert.ok(
    peak > baseline + SLACK_MB * MiB,
    "the burst held memory (else this test shows nothing)",
  );
  await backTo(baseline, "after the appends");
});

test("after 1000 SSE subscribers leave, the memory they held is given back", async () => {
  const stream = await newStream(gw.base);
  await append(gw.base, stream, ["first"]);
  const baseline = await held();
  const subscribers = await Promise.all(
    Array.from({ length: SUBSCRIBERS }, () => openSse(`${gw.base}${stream}/records?seq_num=0`)),
  );
  try {
    await Promise.all(subscribers.map((s) => readUntil(s.events, (events) => events.length > 0)));
    assert.equal(await metric(gw.base, "nova_gateway_sessions", 'kind="sse"'), SUBSCRIBERS);
    assert.ok(
      (await held()) > baseline + SLACK_MB * MiB,
      "the subscribers held memory (else this test shows nothing)",
    );
  } finally {
    for (const s of subscribers) s.close();
  }
  await waitFor(async () => (await metric(gw.base, "nova_gateway_sessions", 'kind="sse"')) === 0);
  await backTo(baseline, "after the subscribers");
});
