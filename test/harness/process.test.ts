import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { test } from "node:test";
import { pathToFileURL } from "node:url";
import { nodeArgs, startProcess } from "./process.ts";
import { tempDir } from "./tmp.ts";
import { waitFor } from "./wait.ts";

const node = process.execPath;

/** Dead, or a zombie nobody has reaped yet (an orphan, when PID 1 does not reap). */
function isGone(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return true;
  }
  try {
    return readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.startsWith("Z") ?? false;
  } catch {
    return true;
  }
}

test("resolves on the ready line, keeps the output, and kill ends it gracefully", async (t) => {
  // The handler is installed before the ready line: the parent may signal as soon as it sees it.
  const script = `
    process.on("SIGTERM", () => { console.log("bye"); process.exit(0); });
    console.log("booting");
    console.error("a warning");
    console.log("ready on 1234");
    setInterval(() => {}, 1000);
  `;
  const p = await startProcess({
    command: node,
    args: ["-e", script],
    readyLine: /^ready on (\d+)$/,
  });
  t.after(() => p.kill("SIGKILL"));
  assert.equal(p.match[1], "1234");
  assert.deepEqual(p.stdoutLines().slice(0, 2), ["booting", "ready on 1234"]);
  await waitFor(() => p.stderr().includes("a warning"), { message: "stderr" });
  assert.deepEqual(await p.kill(), { code: 0, signal: null });
  assert.equal(p.stdoutLines().at(-1), "bye");
  assert.deepEqual(await p.waitForExit(), { code: 0, signal: null });
});

test("a process that exits before its ready line rejects with its stderr", async () => {
  const script = `console.error("boom: no config"); process.exit(3);`;
  await assert.rejects(
    startProcess({ command: node, args: ["-e", script], readyLine: /^ready$/ }),
    (err: Error) => /code 3/.test(err.message) && /boom: no config/.test(err.message),
  );
});

test("a command that cannot start rejects", async () => {
  await assert.rejects(
    startProcess({ command: "/nonexistent/binary", args: [], readyLine: /x/ }),
    /\/nonexistent\/binary/,
  );
});

test("no ready line before the deadline: rejects and kills the process", async () => {
  const script = `console.error("pid " + process.pid); setInterval(() => {}, 1000);`;
  const err = await startProcess({
    command: node,
    args: ["-e", script],
    readyLine: /^ready$/,
    // Long enough for the child to print its pid on a loaded machine.
    timeoutMs: 8000,
  }).then(
    () => assert.fail("resolved"),
    (e: Error) => e,
  );
  assert.match(err.message, /printed no line matching \/\^ready\$\/ within 8000 ms/);
  const pid = Number(err.message.match(/pid (\d+)/)?.[1]);
  assert.ok(pid > 0, err.message);
  await waitFor(() => isGone(pid), { message: `process ${pid} to be gone` });
});

test("kill escalates to SIGKILL and takes the whole process group", async (t) => {
  const grandchild = `setInterval(() => {}, 1000)`;
  const script = `
    const { spawn } = require("node:child_process");
    const g = spawn(process.execPath, ["-e", ${JSON.stringify(grandchild)}], { stdio: "ignore" });
    process.on("SIGTERM", () => {});
    console.log("ready " + g.pid);
    setInterval(() => {}, 1000);
  `;
  const p = await startProcess({ command: node, args: ["-e", script], readyLine: /^ready (\d+)$/ });
  t.after(() => p.kill("SIGKILL"));
  assert.deepEqual(await p.kill("SIGTERM", 300), { code: null, signal: "SIGKILL" });
  const pid = Number(p.match[1]);
  await waitFor(() => isGone(pid), { message: `grandchild ${pid} to be gone` });
});

test("env adds and removes variables; cwd is honoured", async (t) => {
  const dir = await tempDir(t);
  process.env.NOVA_HARNESS_DROP = "drop me";
  t.after(() => {
    delete process.env.NOVA_HARNESS_DROP;
  });
  const script = `console.log(JSON.stringify([process.env.NOVA_HARNESS_ADD, process.env.NOVA_HARNESS_DROP ?? null, process.cwd()]));`;
  const p = await startProcess({
    command: node,
    args: ["-e", script],
    env: { NOVA_HARNESS_ADD: "added", NOVA_HARNESS_DROP: undefined },
    cwd: dir,
    readyLine: /^\[/,
  });
  t.after(() => p.kill());
  assert.deepEqual(JSON.parse(p.match.input ?? ""), ["added", null, dir]);
  assert.deepEqual(await p.waitForExit(), { code: 0, signal: null });
});

test("waitForExit rejects when the process keeps running", async (t) => {
  const p = await startProcess({
    command: node,
    args: ["-e", `console.log("up"); setInterval(() => {}, 1000)`],
    readyLine: /^up$/,
  });
  t.after(() => p.kill());
  await assert.rejects(p.waitForExit(100), /still running after 100 ms/);
});

test("nodeArgs runs TypeScript, and children die with a test process that crashes", async (t) => {
  const dir = await tempDir(t);
  const entry = join(dir, "leaky.mts");
  const harness = pathToFileURL(join(import.meta.dirname, "process.ts")).href;
  await writeFile(
    entry,
    `import { startProcess } from ${JSON.stringify(harness)};
     const up: RegExp = /^up (\\d+)$/;
     const p = await startProcess({
       command: process.execPath,
       args: ["-e", "console.log('up ' + process.pid); setInterval(() => {}, 1000)"],
       readyLine: up,
     });
     console.log("started " + p.match[1]);
     throw new Error("the test failed without stopping its server");
    `,
  );
  const [command, args] = nodeArgs(entry, []);
  const p = await startProcess({ command, args, readyLine: /^started (\d+)$/ });
  t.after(() => p.kill());
  const status = await p.waitForExit();
  assert.equal(status.code, 1);
  assert.match(p.stderr(), /the test failed without stopping its server/);
  const pid = Number(p.match[1]);
  await waitFor(() => isGone(pid), { message: `orphan ${pid} to be gone` });
});
