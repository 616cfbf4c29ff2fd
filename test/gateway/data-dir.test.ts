// `npm start`'s embedded store is one process's: a second gateway on the same --data-dir, or
// on a port in use, says so in one line and exits 2, having changed nothing.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { test } from "node:test";
import { request } from "undici";
import { nodeArgs, startProcess } from "../harness/process.ts";
import { tempDir } from "../harness/tmp.ts";

function run(args: string[]) {
  const [command, argv] = nodeArgs("src/main.ts", args);
  const r = spawnSync(command, argv, { encoding: "utf8", timeout: 60_000 });
  return { code: r.status, stderr: r.stderr };
}

test("a second gateway on a --data-dir in use, or on a port in use, exits 2 saying so", async (t) => {
  const dir = await tempDir(t);
  const [command, argv] = nodeArgs("src/main.ts", [
    ...["--data-dir", dir, "--port", "0", "--log-level", "warn", "--drain-delay-ms", "0"],
  ]);
  const first = await startProcess({
    command,
    args: argv,
    readyLine: /^nova-gateway listening on (https?:\/\/\S+)$/,
  });
  t.after(() => first.kill("SIGKILL"));
  const port = new URL(first.match[1] as string).port;

  const second = run(["--data-dir", dir, "--port", "0", "--log-level", "warn"]);
  assert.equal(second.code, 2, second.stderr);
  assert.match(second.stderr, new RegExp(`in use by process ${first.child.pid}`));
  assert.doesNotMatch(second.stderr, /\n\s+at /, "one line, no stack");

  const elsewhere = await tempDir(t);
  const taken = run(["--data-dir", elsewhere, "--port", port, "--log-level", "warn"]);
  assert.equal(taken.code, 2, taken.stderr);
  assert.match(taken.stderr, new RegExp(`--port ${port}: .*EADDRINUSE`));
  assert.doesNotMatch(taken.stderr, /\n\s+at /, "one line, no stack");
});

test("on loopback, as npm start listens, only a loopback Host or --allowed-hosts is answered", async (t) => {
  const dir = await tempDir(t);
  const [command, argv] = nodeArgs("src/main.ts", [
    ...["--data-dir", dir, "--port", "0", "--log-level", "warn", "--drain-delay-ms", "0"],
    ...["--allowed-hosts", "nova.internal,.s2.internal"],
  ]);
  const gw = await startProcess({
    command,
    args: argv,
    readyLine: /^nova-gateway listening on (https?:\/\/\S+)$/,
  });
  t.after(() => gw.kill("SIGKILL"));
  const base = gw.match[1] as string;
  const { port } = new URL(base);
  const ask = (host: string) =>
    request(`${base}/v1/buckets`, { method: "POST", headers: { host }, body: "{}" }).then(
      async (res) => ({ status: res.statusCode, body: await res.body.text() }),
    );
  // A rebound name: what a page of that site would reach on this machine.
  const rebound = await ask(`attacker.example:${port}`);
  assert.equal(rebound.status, 403, rebound.body);
  assert.match(rebound.body, /"code":"permission_denied".*--allowed-hosts/);
  assert.equal((await ask(`evil.nova.internal:${port}`)).status, 403);
  const answered = ["localhost", "127.0.0.1", "nova.internal", "s2.internal", "basin.s2.internal"];
  for (const host of answered.map((name) => `${name}:${port}`)) {
    // Answered: a 415 (no content type), not the host's 403.
    assert.equal((await ask(host)).status, 415, host);
  }
});
