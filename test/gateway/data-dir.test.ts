// `npm start`'s embedded store is one process's: a second gateway on the same --data-dir, or
// on a port in use, says so in one line and exits 2, having changed nothing.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { test } from "node:test";
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
