import { rmSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** Directories a test's hook could not remove yet (a process still wrote into them). */
const leftovers = new Set<string>();
let hooked = false;

/**
 * A fresh directory, removed with everything in it when the test is done. Hooks run in the
 * order they were added, so the removal may come before the test's processes are stopped, and a
 * hook that throws stops the ones after it: a removal that fails is tried again when this
 * process exits, after the harness has killed what is left (process.ts), rather than thrown.
 */
export async function tempDir(t: { after(fn: () => Promise<void>): void }): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "nova-test-"));
  t.after(async () => {
    try {
      await rm(dir, { recursive: true, force: true });
    } catch {
      leftovers.add(dir);
      removeAtExit();
    }
  });
  return dir;
}

function removeAtExit(): void {
  if (hooked) return;
  hooked = true;
  process.once("exit", () => {
    for (const dir of leftovers) rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
  });
}
