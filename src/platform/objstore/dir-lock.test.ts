import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { DirInUseError, LOCK_FILE, lockDir } from "./dir-lock.ts";

async function tempDir(t: { after(fn: () => Promise<void>): void }): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "nova-dir-lock-"));
  t.after(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

test("a directory is one process's: a live holder is named; the release frees it", async (t) => {
  const dir = await tempDir(t);
  const release = await lockDir(dir);
  assert.equal((await readFile(join(dir, LOCK_FILE), "utf8")).trim(), String(process.pid));
  // Another live process holds it: this test's parent (the runner).
  await writeFile(join(dir, LOCK_FILE), `${process.ppid}\n`);
  await assert.rejects(lockDir(dir), (err: Error) => {
    assert.ok(err instanceof DirInUseError);
    assert.match(err.message, new RegExp(`in use by process ${process.ppid}`));
    return true;
  });
  // A release leaves a lock that is not its own (taken over meanwhile) where it is.
  await release();
  assert.equal((await readFile(join(dir, LOCK_FILE), "utf8")).trim(), String(process.ppid));
  await writeFile(join(dir, LOCK_FILE), `${process.pid}\n`);
  const again = await lockDir(dir);
  await again();
  assert.deepEqual(await readdir(dir), [], "nothing left behind");
});

test("a lock left by a process that is gone (kill -9) is taken over", async (t) => {
  const dir = await tempDir(t);
  // A pid that was alive and has exited.
  const gone = spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"]);
  await writeFile(join(dir, LOCK_FILE), `${gone.stdout.toString()}\n`);
  const release = await lockDir(dir);
  assert.equal((await readFile(join(dir, LOCK_FILE), "utf8")).trim(), String(process.pid));
  await release();
});

/** Two processes taking `dir` at the same instant: what each got. */
async function race(dir: string): Promise<string[]> {
  const at = Date.now() + 300;
  const script = `
    import { lockDir } from ${JSON.stringify(new URL("./dir-lock.ts", import.meta.url).pathname)};
    while (Date.now() < ${at});
    try { await lockDir(${JSON.stringify(dir)}); console.log("got"); }
    catch (err) { console.log(err.name); }
    setInterval(() => {}, 1000);`;
  // Each stays alive (holding what it got) until both have said: one that exited early would
  // leave a stale lock the other may rightly take.
  const children = [0, 1].map(() =>
    spawn(process.execPath, ["--input-type=module", "-e", script], {
      stdio: ["ignore", "pipe", "inherit"],
    }),
  );
  try {
    const said = children.map(
      (child) =>
        new Promise<string>((resolve) => {
          let out = "";
          child.stdout.on("data", (d: Buffer) => {
            out += d;
            if (out.includes("\n")) resolve(out.trim());
          });
          child.on("exit", () => resolve(out.trim()));
        }),
    );
    return (await Promise.all(said)).sort();
  } finally {
    for (const child of children) child.kill("SIGKILL");
  }
}

test("two processes starting at once, on a free directory or a stale lock: one gets it", async (t) => {
  for (const stale of [false, true, false, true]) {
    const dir = await tempDir(t);
    if (stale) {
      const gone = spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"]);
      await writeFile(join(dir, LOCK_FILE), `${gone.stdout.toString()}\n`);
    }
    assert.deepEqual(await race(dir), ["DirInUseError", "got"], stale ? "stale" : "free");
  }
});
