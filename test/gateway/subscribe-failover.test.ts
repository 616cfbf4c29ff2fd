// A subscription whose star is gone for good, behind a gateway process with
// --subscribe-failover-ms: it re-subscribes for that long, then its reader gets a retryable
// `error` event (it resumes by its cursor elsewhere), instead of the default 30 s.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { type GatewayProcess, gatewayProcess } from "../harness/gateway-process.ts";
import { append, newStream } from "../harness/http.ts";
import { type StarProcess, startStarProcess } from "../harness/star-process.ts";
import { tempDir } from "../harness/tmp.ts";
import { closeSseAgent, openSse, readUntil } from "./sse-client.ts";

const cleanups: (() => Promise<unknown> | unknown)[] = [];
let star: StarProcess;
let gw: GatewayProcess;

before(async () => {
  const dir = await tempDir({ after: (fn) => void cleanups.push(fn) });
  star = await startStarProcess(["--data-dir", dir]);
  cleanups.push(
    () => star.proc.kill("SIGKILL"),
    () => star.client.close(),
  );
  gw = await gatewayProcess([star.address], ["--subscribe-failover-ms", "500"]);
  cleanups.push(() => gw.close(), closeSseAgent);
});

after(async () => {
  for (const fn of cleanups.reverse()) await fn();
});

test("a subscription whose star is gone ends with a retryable error after the flag's time", async () => {
  const s = await newStream(gw.base);
  await append(gw.base, s, ["one"]);
  const sse = await openSse(`${gw.base}${s}/records?seq_num=0`);
  try {
    assert.equal(sse.status, 200);
    await readUntil(sse.events, (seen) => seen.some((e) => e.event === "batch"));
    await star.proc.kill("SIGKILL");
    // Well under the default 30 s of re-subscribing: the flag's 500 ms ends it.
    const seen = await readUntil(sse.events, (e) => e.some((x) => x.event === "error"), 20_000);
    const error = JSON.parse(seen.find((e) => e.event === "error")?.data ?? "{}");
    assert.equal(error.code, "unavailable", JSON.stringify(error));
    assert.equal(error.retryable, true);
  } finally {
    sse.close();
  }
});
