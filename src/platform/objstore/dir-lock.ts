// One process at a time on an embedded store's directory: two would each take the other's log
// numbers and delete what the other still needs (acked records lost). A lock file names the
// process that holds the directory; one left by a process that is gone (kill -9) is taken over.
// The file is linked into place whole (never seen empty), a stale one is moved aside rather
// than removed (of two taking it over, one moves it), and a release removes only its own.
import { randomUUID } from "node:crypto";
import { link, readFile, rename, unlink, writeFile } from "node:fs/promises";
import { join } from "node:path";

export const LOCK_FILE = "nova.lock";

export class DirInUseError extends Error {
  override readonly name = "DirInUseError";
}

/** Takes `dir` for this process; resolves with the release. Throws DirInUseError when held. */
export async function lockDir(dir: string): Promise<() => Promise<void>> {
  const path = join(dir, LOCK_FILE);
  const mine = `${process.pid}\n`;
  const part = join(dir, `${LOCK_FILE}.${randomUUID()}`);
  await writeFile(part, mine);
  try {
    for (let attempt = 0; attempt < 3; attempt++) {
      try {
        await link(part, path);
        return async () => {
          // Only its own: an operator may have removed it, and another process taken it since.
          if ((await readFile(path, "utf8").catch(() => "")) === mine) {
            await unlink(path).catch(() => {});
          }
        };
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
      }
      const held = await readFile(path, "utf8").catch(() => "");
      const holder = Number.parseInt(held, 10);
      if (Number.isSafeInteger(holder) && holder !== process.pid && alive(holder)) {
        throw new DirInUseError(
          `${dir} is in use by process ${holder} (its ${LOCK_FILE}); stop it, or remove the file if no such process uses the directory`,
        );
      }
      // Left by a process that is gone (or by this one's pid in an earlier life): moved aside,
      // and put back if what was moved is not what was read (another start took it meanwhile).
      const aside = join(dir, `${LOCK_FILE}.stale-${randomUUID()}`);
      if (
        await rename(path, aside).then(
          () => true,
          () => false,
        )
      ) {
        const moved = await readFile(aside, "utf8").catch(() => "");
        if (moved !== held) await link(aside, path).catch(() => {});
        await unlink(aside).catch(() => {});
      }
    }
    throw new DirInUseError(`${dir}: its ${LOCK_FILE} changed hands while this process started`);
  } finally {
    await unlink(part).catch(() => {});
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
