// Runs every *.test.ts under the given folders (default: src and test) with node's test runner.
// Node 20's --test expands no globs, so the files are listed here.
import { spawnSync } from "node:child_process";
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";

const roots = process.argv.slice(2).filter((a) => !a.startsWith("--"));
const passthrough = process.argv.slice(2).filter((a) => a.startsWith("--"));
const files = [];
const walk = (dir) => {
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) walk(path);
    else if (name.endsWith(".test.ts")) files.push(path);
  }
};
for (const root of roots.length > 0 ? roots : ["src", "test"]) walk(root);
if (files.length === 0) {
  console.error("no test files found");
  process.exit(1);
}
const result = spawnSync(
  process.execPath,
  ["--import", "tsx", "--test", "--test-concurrency=1", ...passthrough, ...files],
  { stdio: "inherit" },
);
process.exit(result.status ?? 1);
