// `npm test`'s runner (scripts/test.ts) against a process that ends before reporting: the
// files whose results never came fail the run, named, rather than pass for having run nothing
// (node:test's forceExit could drop a shared process's last results: nodejs/node#64833).
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { join } from "node:path";
import { test } from "node:test";
import { promisify } from "node:util";

const execFileAsync = promisify(execFile);
const root = join(import.meta.dirname, "..");
const FIXTURES = "test/fixtures/lost-results";

async function runner(files: string[]): Promise<{ code: number; stdout: string }> {
  try {
    const { stdout } = await execFileAsync(
      process.execPath,
      [join(root, "scripts", "test.ts"), ...files],
      // Without this the runner's run() would know it is inside a test file and run nothing.
      { cwd: root, env: { ...process.env, NODE_TEST_CONTEXT: undefined }, timeout: 60_000 },
    );
    return { code: 0, stdout };
  } catch (err) {
    const failed = err as { code: number; stdout: string };
    return { code: failed.code, stdout: failed.stdout };
  }
}

test("files whose process ended before reporting them fail the run, named", async () => {
  const files = [`${FIXTURES}/exits.test.ts`, `${FIXTURES}/after.test.ts`];
  const lost = await runner(files);
  assert.equal(lost.code, 1, lost.stdout);
  assert.match(lost.stdout, /no result came for 2 test file\(s\)/);
  for (const file of files) assert.ok(lost.stdout.includes(`  ${file}\n`), file);
  assert.match(lost.stdout, /ℹ fail 2/);
  // The same file in a process that reports it passes.
  const alone = await runner([`${FIXTURES}/after.test.ts`]);
  assert.equal(alone.code, 0, alone.stdout);
  assert.doesNotMatch(alone.stdout, /no result came/);
});
