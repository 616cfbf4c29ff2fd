// The boundary check of `npm test` (`npm run boundaries`: dependency-cruiser with
// .dependency-cruiser.mjs) fails on each kind of violation and names the rule: a small tree made
// here breaks every rule once, beside a tree that breaks none.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdir, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { type TestContext, test } from "node:test";
import { promisify } from "node:util";
import { tempDir } from "./harness/tmp.ts";

const run = promisify(execFile);
const root = join(import.meta.dirname, "..");
const depcruise = join(root, "node_modules", "dependency-cruiser", "bin", "dependency-cruiser.mjs");
const config = join(root, ".dependency-cruiser.mjs");

/** Writes `files` (path → the paths it imports) into a fresh tree and runs the check there. */
async function check(t: TestContext, files: Record<string, string[]>) {
  const dir = await tempDir(t);
  await writeFile(join(dir, "tsconfig.json"), "{}");
  for (const [path, imports] of Object.entries(files)) {
    await mkdir(join(dir, dirname(path)), { recursive: true });
    const lines = imports.map((to, i) => `import * as m${i} from "${to}";\nvoid m${i};`);
    await writeFile(join(dir, path), `${lines.join("\n")}\nexport const here = 1;\n`);
  }
  return run(process.execPath, [depcruise, "src", "--config", config], { cwd: dir }).then(
    ({ stdout }) => ({ code: 0, out: stdout }),
    (err: { code: number; stdout: string }) => ({ code: err.code, out: err.stdout }),
  );
}

test("a tree that keeps every rule passes", async (t) => {
  const result = await check(t, {
    "src/main.ts": ["./gateway/index.ts", "./star/index.ts"],
    "src/gateway/index.ts": ["./app.ts"],
    "src/star/index.ts": ["./star.ts"],
    "src/gateway/app.ts": ["../contract/codec.ts", "../platform/flags.ts"],
    "src/star/star.ts": ["../contract/codec.ts", "../platform/flags.ts"],
    "src/contract/codec.ts": [],
    "src/platform/flags.ts": [],
    "src/gateway/app.test.ts": ["./app.ts", "./fake.test-helper.ts", "../../test/harness.ts"],
    "src/gateway/routes.ts": ["./upstream/index.ts"],
    "src/gateway/upstream/index.ts": ["./client.ts"],
    "src/gateway/upstream/client.ts": [],
    "src/gateway/upstream/client.test.ts": ["./client.ts"],
    "src/gateway/fake.test-helper.ts": [],
    "test/harness.ts": [],
  });
  assert.equal(result.code, 0, result.out);
});

test("each rule, broken once, fails the check and is named", async (t) => {
  const result = await check(t, {
    "src/main.ts": [],
    "src/gateway/a.ts": ["./b.ts", "../star/x.ts"],
    "src/gateway/b.ts": ["./a.ts"],
    "src/star/x.ts": ["../gateway/a.ts"],
    "src/contract/c.ts": ["../gateway/a.ts", "../platform/p.ts"],
    "src/platform/p.ts": ["../contract/c.ts", "../main.ts"],
    "src/star/y.ts": ["./fake.test-helper.ts"],
    "src/gateway/routes.ts": ["./upstream/client.ts"],
    "src/gateway/upstream/index.ts": ["./client.ts"],
    "src/gateway/upstream/client.ts": [],
    "src/star/fake.test-helper.ts": [],
  });
  assert.notEqual(result.code, 0, result.out);
  for (const rule of [
    "no-cycles",
    "gateway-apart-from-star",
    "star-apart-from-gateway",
    "shared-code-below-the-programs",
    "contract-apart-from-platform",
    "platform-apart-from-contract",
    "entries-are-not-imported",
    "no-test-support-in-programs",
    "through-the-face-of-gateway-upstream",
  ]) {
    assert.match(result.out, new RegExp(`error ${rule}:`), `${rule} is reported:\n${result.out}`);
  }
});
