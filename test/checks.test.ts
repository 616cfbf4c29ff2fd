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
const CHECKS = [
  "gen:check",
  "openapi:check",
  "config-docs:check",
  "typecheck",
  "lint",
  "boundaries",
];

// Under npm, its own CLI on the project's Node; run directly, the npm on PATH.
const npm: [string, string[]] = process.env.npm_execpath
  ? [process.execPath, [process.env.npm_execpath]]
  : ["npm", []];

for (const script of CHECKS) {
  test(`npm run ${script}`, async () => {
    const [command, prefix] = npm;
    await run(command, [...prefix, "run", "--silent", script], {
      cwd: root,
      maxBuffer: 64 * 1024 * 1024,
    }).catch((err: Error & { stdout?: string; stderr?: string }) =>
      assert.fail(`npm run ${script} failed:\n${err.stdout ?? ""}${err.stderr ?? ""}`),
    );
  });
}
