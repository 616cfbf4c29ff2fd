import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** A fresh directory, removed with everything in it when the test is done. */
export async function tempDir(t: { after(fn: () => Promise<void>): void }): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "nova-test-"));
  t.after(() => rm(dir, { recursive: true, force: true }));
  return dir;
}
