// Some integration tests drive a program from Debian (Chromium, HAProxy) that `npm ci` cannot
// install. On a developer's machine without it such a test is skipped with one loud line saying
// how to enable it; under CI (CI set, but not to false or 0) it runs anyway and fails, so a skip never passes for CI.
import { accessSync, constants } from "node:fs";

export interface SystemTool {
  path: string;
  /** Why the tests that need the tool are skipped; undefined when they run. */
  skip: string | undefined;
}

export function systemTool(path: string, debianPackage: string): SystemTool {
  if (underCi() || isExecutable(path)) return { path, skip: undefined };
  const skip = `${path} is missing: \`apt-get install ${debianPackage}\` (as .ci/run does) runs this test`;
  process.stderr.write(`\n*** SKIPPED: ${skip} ***\n\n`);
  return { path, skip };
}

/** CI=true, as GitHub and most runners set it, or any other value but false and 0 (CI=1). */
function underCi(): boolean {
  const ci = process.env.CI?.toLowerCase();
  return ci !== undefined && ci !== "" && ci !== "false" && ci !== "0";
}

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}
