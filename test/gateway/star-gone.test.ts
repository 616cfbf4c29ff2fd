// A star that stops answering (SIGSTOP: its socket stays open, nothing answers on it) behind a
// gateway process: --star-keepalive-ms and --star-keepalive-timeout-ms end the connection once a
// ping goes unanswered, so an append waiting on it fails 503, retryable with its outcome unknown,
// instead of waiting out --star-append-timeout-ms (60 s, here 10 minutes).
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { type GatewayProcess, gatewayProcess } from "../harness/gateway-process.ts";
import { http, newStream } from "../harness/http.ts";
import { type StarProcess, startStarProcess } from "../harness/star-process.ts";
import { tempDir } from "../harness/tmp.ts";

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
      ...["--star-keepalive-ms", "300", "--star-keepalive-timeout-ms", "300"],
      ...["--star-append-timeout-ms", "600000"],
    ],
  );
  cleanups.push(() => gw.close());
});

after(async () => {
  // A stopped star takes no SIGTERM: let it go on, so that its kill is prompt.
  if (star.proc.child.pid) process.kill(star.proc.child.pid, "SIGCONT");
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
