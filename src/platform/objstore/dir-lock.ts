// One process at a time on an embedded store's directory: two would each take the other's log
// numbers and delete what the other still needs (acked records lost). A lock file names the
// process that holds the directory; one left by a process that is gone (kill -9) is taken over.
import { open, readFile, unlink } from "node:fs/promises";
import { join } from "node:path";

export const LOCK_FILE = "nova.lock";

export class DirInUseError extends Error {
  override readonly name = "DirInUseError";
}

/** Takes `dir` for this process; resolves with the release. Throws DirInUseError when held. */
export async function lockDir(dir: string): Promise<() => Promise<void>> {
  const path = join(dir, LOCK_FILE);
  for (let attempt = 0; ; attempt++) {
    try {
      const file = await open(path, "wx");
      await file.writeFile(`${process.pid}\n`);
      await file.close();
      return async () => {
        await unlink(path).catch(() => {});
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST" || attempt > 0) throw err;
    }
    const holder = Number.parseInt(await readFile(path, "utf8").catch(() => ""), 10);
    if (Number.isSafeInteger(holder) && holder !== process.pid && alive(holder)) {
      throw new DirInUseError(
        `${dir} is in use by process ${holder} (its ${LOCK_FILE}); stop it, or remove the file if no such process uses the directory`,
      );
    }
    // Left by a process that is gone (or by this one's pid in an earlier life): taken over.
    await unlink(path).catch(() => {});
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: a process of another user holds the pid; it is alive.
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}
