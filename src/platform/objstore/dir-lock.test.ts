import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
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
  await writeFile(join(dir, LOCK_FILE), `${process.pid}\n`);
  await release();
  const again = await lockDir(dir);
  await again();
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
