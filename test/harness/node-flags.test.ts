import assert from "node:assert/strict";
import { test } from "node:test";
import { scriptNodeFlags } from "./node-flags.ts";

test("npm start and npm run star run their programs with a capped young generation", () => {
  assert.deepEqual(scriptNodeFlags("src/main.ts"), ["--max-semi-space-size=16"]);
  assert.deepEqual(scriptNodeFlags("src/star/main.ts"), ["--max-semi-space-size=16"]);
});

test("a program no script runs gets none", () => {
  assert.deepEqual(scriptNodeFlags("bench/soak-client.ts"), []);
  assert.deepEqual(scriptNodeFlags("src/gateway/index.ts"), []);
});
