// SIGTERM drains the gateway (`src/main.ts` as a child process): an SSE session gets a final
// jittered `retry:` and is closed, an NDJSON session finishes its in-flight batches and ends
// with `{"end": {"reason": "draining"}}`, and the process exits cleanly.
import assert from "node:assert/strict";
import { Readable } from "node:stream";
import { after, before, test } from "node:test";
import { request } from "undici";
import type { GatewayProcess } from "../harness/gateway-process.ts";
import { append, http, newStream } from "../harness/http.ts";
import { type Stack, startProcessStack } from "../harness/stack.ts";
import { closeSseAgent, openSse, readUntil, recordsOf } from "./sse-client.ts";

let stack: Stack<GatewayProcess>;
let gw: GatewayProcess;

before(async () => {
  stack = await startProcessStack("nova-drain-");
  gw = stack.gw;
});
after(async () => {
  // The test SIGTERMs the gateway itself; one still running here has failed to drain.
  await gw?.proc.kill("SIGKILL");
  await closeSseAgent();
  await stack?.close();
});

test("SIGTERM: SSE gets a jittered retry and closes, NDJSON ends with reason draining", async () => {
  const s = await newStream(gw.base);
  await append(gw.base, s, ["a"]);
  assert.equal((await http(gw.base, "GET", "/readyz")).status, 200);

  const sse = await openSse(`${gw.base}${s}/records?seq_num=0`);
  await readUntil(sse.events, (seen) => seen.some((e) => e.event === "ping"));

  // An NDJSON producer with one batch acked and its body still open.
  let finishBody: () => void = () => {};
  const bodyDone = new Promise<void>((resolve) => {
    finishBody = resolve;
  });
  async function* lines() {
    yield `${JSON.stringify({ records: [{ body: "b" }] })}\n`;
    await bodyDone;
  }
  const ndjson = await request(`${gw.base}${s}/records`, {
    method: "POST",
    headers: { "content-type": "application/x-ndjson" },
    body: Readable.from(lines()),
  });
  assert.equal(ndjson.statusCode, 200);
  const answers = ndjson.body[Symbol.asyncIterator]();
  let text = String((await answers.next()).value);
  assert.equal(JSON.parse(text).start.seq_num, 1);

  // The NDJSON batch reaches the subscriber too. Its ack and its delivery travel apart from the
  // star, so the drain starts once it is there: then the final retry, and the stream ends.
  const delivered = await readUntil(sse.events, (seen) => seen.some((e) => e.event === "batch"));
  const exited = gw.proc.kill("SIGTERM");
  // An idle ping may come between them on a loaded machine.
  const rest = [...delivered, ...(await readUntil(sse.events))].filter((e) => e.event !== "ping");
  assert.deepEqual(
    rest.map((e) => e.event),
    ["batch", "retry"],
  );
  assert.deepEqual(recordsOf(rest), [[1, "b"]]);
  assert.ok((rest[1]?.retry ?? 0) > 0);

  for (let r = await answers.next(); !r.done; r = await answers.next()) {
    text += String(r.value);
    // The producer stops sending once it reads the end line.
    if (text.includes('"end"')) finishBody();
  }
  const out = text
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l));
  assert.deepEqual(out.at(-1), { end: { reason: "draining", batches: 1 } });

  assert.deepEqual(await exited, { code: 0, signal: null });
});
