// Every package.json script runs something that is there: each `node FILE` names a file that
// exists and answers --help (exit 0, a usage text, and nothing run), each `npm run NAME` a script,
// each other command a binary installed in node_modules/.bin, and each `node --test` pattern
// matches test files.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { existsSync, globSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { promisify } from "node:util";
import { commands, nodeFile, scripts } from "./harness/node-flags.ts";

const root = join(import.meta.dirname, "..");
const nodeFiles = new Map<string, string>();
for (const [name, script] of Object.entries(scripts)) {
  for (const words of commands(script)) {
    const [program, first, ...rest] = words;
    const file = nodeFile(words);
    if (file !== undefined) nodeFiles.set(file, name);
    if (program === "node" && first === "--test") {
      test(`npm run ${name}: every test pattern matches a file`, () => {
        for (const pattern of rest.filter((word) => !word.startsWith("--"))) {
          assert.ok(globSync(pattern, { cwd: root }).length > 0, `${pattern} matches nothing`);
        }
      });
    }
  }
}

test("every script's commands name something that exists", () => {
  for (const [name, script] of Object.entries(scripts)) {
    for (const words of commands(script)) {
      const [program, first] = words;
      assert.ok(program !== undefined, `npm run ${name}: an empty command`);
      if (program === "npm") {
        assert.equal(first, "run", `npm run ${name}: only npm run is expected`);
      } else if (program === "node") {
        assert.ok(first !== undefined, `npm run ${name}: node with nothing to run`);
        const file = nodeFile(words);
        if (file !== undefined) {
          assert.ok(existsSync(join(root, file)), `npm run ${name}: ${file} does not exist`);
        }
      } else {
        assert.ok(
          existsSync(join(root, "node_modules", ".bin", program)),
          `npm run ${name}: ${program} is not installed`,
        );
      }
    }
    for (const [program, run, target] of commands(script)) {
      if (program === "npm" && run === "run") {
        assert.ok(
          target !== undefined && target in scripts,
          `npm run ${name}: no script ${target}`,
        );
      }
    }
  }
});

test("every file a script runs with node answers --help", async () => {
  assert.ok(nodeFiles.size > 10, "the scripts run their files with node");
  const run = promisify(execFile);
  const files = [...nodeFiles];
  // A few at a time: each --help loads its program's modules.
  for (let i = 0; i < files.length; i += 4) {
    await Promise.all(
      files.slice(i, i + 4).map(async ([file, name]) => {
        const { stdout } = await run(process.execPath, [file, "--help"], {
          cwd: root,
          timeout: 60_000,
        }).catch((err: Error) => assert.fail(`npm run ${name}: ${file} --help: ${err.message}`));
        assert.match(stdout, /^Usage: \S/, `npm run ${name}: ${file} --help printed no usage`);
        assert.ok(stdout.split("\n").length > 3, `npm run ${name}: ${file} --help says too little`);
      }),
    );
  }
});
