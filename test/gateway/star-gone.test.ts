// A star that stops answering, then one gone for good, behind a gateway process. Stopped
// (SIGSTOP: its socket stays open, nothing answers on it): --star-keepalive-ms and
// --star-keepalive-timeout-ms end the connection once a ping goes unanswered, so an append
// waiting on it fails 503, retryable with its outcome unknown, instead of waiting out
// --star-append-timeout-ms (60 s, here 10 minutes). Gone (SIGKILL): a subscription re-subscribes
// for --subscribe-failover-ms, then its reader gets a retryable `error` event (it resumes by its
// cursor elsewhere), instead of the default 30 s.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { type GatewayProcess, gatewayProcess } from "../harness/gateway-process.ts";
import { append, http, newStream } from "../harness/http.ts";
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
  gw = await gatewayProcess(
    [star.address],
    [
      // Long enough that a star slowed by a loaded machine is not taken for a stopped one.
      ...["--star-keepalive-ms", "2000", "--star-keepalive-timeout-ms", "2000"],
      ...["--star-append-timeout-ms", "600000", "--subscribe-failover-ms", "500"],
    ],
  );
  cleanups.push(() => gw.close(), closeSseAgent);
});

after(async () => {
  for (const fn of cleanups.reverse()) await fn();
});

test("an append to a star that stopped answering fails 503 once its pings go unanswered", async () => {
  const s = await newStream(gw.base);
  const ok = await http(gw.base, "POST", `${s}/records`, { records: [{ body: "before" }] });
  assert.equal(ok.status, 200, ok.text);
  process.kill(star.proc.child.pid as number, "SIGSTOP");
  try {
    const res = await http(gw.base, "POST", `${s}/records`, { records: [{ body: "frozen" }] });
    assert.equal(res.status, 503, res.text);
    assert.equal(res.json.retryable, true);
    assert.equal(res.json.outcome, "unknown");
  } finally {
    process.kill(star.proc.child.pid as number, "SIGCONT");
  }
});

// Last: the star is gone after it.
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
