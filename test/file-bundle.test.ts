import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { test } from "node:test";
import { pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { entrySource } from "../scripts/file-bundle.ts";
import { fileDuration, type TestEvent } from "../scripts/test-reporter.ts";
import { tempDir } from "./harness/tmp.ts";

const execFileAsync = promisify(execFile);
const SCRIPTS = join(import.meta.dirname, "..", "scripts");

// Each file counts its own hooks' runs; the test sees only its own file's.
const fixture = (name: string) => `
import assert from "node:assert/strict";
import { after, before, beforeEach, test } from "node:test";
let befores = 0;
let eaches = 0;
before(() => { befores++; });
beforeEach(() => { eaches++; });
after(() => { if (befores !== 1 || eaches !== 2) process.exitCode = 9; });
test("${name} first", () => { assert.equal(befores, 1); assert.equal(eaches, 1); });
test("${name} second", () => { assert.equal(eaches, 2); });
`;

// node:test runs no files from inside a test file: a driver process runs the entry.
const driver = (entry: string) => `
import { run } from "node:test";
import { fileDuration } from ${JSON.stringify(pathToFileURL(join(SCRIPTS, "test-reporter.ts")).href)};
const seen = { passed: [], failed: [], timed: [] };
for await (const event of run({ files: [${JSON.stringify(entry)}] })) {
  if (event.type === "test:pass") seen.passed.push(event.data.name);
  if (event.type === "test:fail") seen.failed.push(event.data.name);
  const duration = fileDuration(event);
  if (duration) seen.timed.push(duration[0]);
}
console.log(JSON.stringify(seen));
`;

test("files sharing a process keep their own top-level hooks, and each is timed as a file", async (t) => {
  const dir = await tempDir(t);
  const files = ["a.test.ts", "b.test.ts"].map((name) => join(dir, name));
  for (const file of files) await writeFile(file, fixture(file));
  const entry = join(dir, "entry.mjs");
  await writeFile(entry, entrySource(files));
  await writeFile(join(dir, "driver.mjs"), driver(entry));
  const { stdout } = await execFileAsync(process.execPath, [join(dir, "driver.mjs")], {
    // Without this the driver's run() would know it is inside a test file and run nothing.
    env: { ...process.env, NODE_TEST_CONTEXT: undefined },
  });
  const seen = JSON.parse(stdout) as { passed: string[]; failed: string[]; timed: string[] };
  assert.deepEqual(seen.failed, []);
  for (const file of files) {
    assert.ok(seen.passed.includes(`${file} first`) && seen.passed.includes(`${file} second`));
  }
  assert.deepEqual(seen.timed, files);
});

test("a file's own process is timed as the file; a test named like a path inside it is not", () => {
  const complete = (name: string, nesting: number): TestEvent => ({
    type: "test:complete",
    data: { name, nesting, file: "/r/test/x.test.ts", details: { duration_ms: 5 } },
  });
  assert.deepEqual(fileDuration(complete("/r/test/x.test.ts", 0)), ["/r/test/x.test.ts", 5]);
  assert.equal(fileDuration(complete("/r/test/x.test.ts", 1)), undefined);
  assert.equal(fileDuration(complete("/tmp/bundles/1-of-3.mjs", 0)), undefined);
  assert.equal(fileDuration(complete("a test", 0)), undefined);
  assert.equal(
    fileDuration({ type: "test:pass", data: complete("/r/x.test.ts", 0).data }),
    undefined,
  );
});
