import assert from "node:assert/strict";
import { test } from "node:test";
import { scriptNodeFlags } from "./node-flags.ts";

test("a program's Node flags are its script's", () => {
  assert.deepEqual(scriptNodeFlags("src/main.ts"), ["--max-semi-space-size=16"]);
  assert.deepEqual(scriptNodeFlags("src/star/main.ts"), ["--max-semi-space-size=16"]);
});

test("a program no script runs gets none", () => {
  assert.deepEqual(scriptNodeFlags("bench/soak-client.ts"), []);
  assert.deepEqual(scriptNodeFlags("src/gateway/index.ts"), []);
});
