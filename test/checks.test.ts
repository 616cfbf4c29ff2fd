// The static checks of `npm test` (generated code, the OpenAPI document and the configuration
// docs fresh; types; lint; import boundaries), each as a test: they run in the same pool as the
// test files, beside them rather than before them, and a failure is reported with its output.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { join } from "node:path";
import { test } from "node:test";
import { promisify } from "node:util";

const run = promisify(execFile);
const root = join(import.meta.dirname, "..");
/** Each check's npm script, with the arguments the test adds. */
const CHECKS: [string, string[]][] = [
  ["gen:check", []],
  ["openapi:check", []],
  ["config-docs:check", []],
  // The other test processes keep every core busy, so tsgo's worker threads only add CPU: 6.6
  // to 6.8 s of it against 4.8 to 4.9 in one thread (alone, 3.5 s of wall against 4.3).
  ["typecheck", ["--singleThreaded"]],
  ["lint", []],
  ["boundaries", []],
];

// Under npm, its own CLI on the project's Node; run directly, the npm on PATH.
const npm: [string, string[]] = process.env.npm_execpath
  ? [process.execPath, [process.env.npm_execpath]]
  : ["npm", []];

for (const [script, args] of CHECKS) {
  const extra = args.length > 0 ? ["--", ...args] : [];
  test(`npm run ${[script, ...extra].join(" ")}`, async () => {
    const [command, prefix] = npm;
    await run(command, [...prefix, "run", "--silent", script, ...extra], {
      cwd: root,
      maxBuffer: 64 * 1024 * 1024,
    }).catch((err: Error & { stdout?: string; stderr?: string }) =>
      assert.fail(`npm run ${script} failed:\n${err.stdout ?? ""}${err.stderr ?? ""}`),
    );
  });
}
