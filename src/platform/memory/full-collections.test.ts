import assert from "node:assert/strict";
import { test } from "node:test";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { countFullCollections } from "./full-collections.ts";

// A script gets gc() only with --expose-gc; with the flag set, a new context has it.
setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as (options: { type: "major" | "minor" }) => void;

/** Waits for the observer's entries, which arrive after the collection, in a later turn. */
async function settle(count: () => number, want: number): Promise<void> {
  const deadline = performance.now() + 5000;
  while (count() < want && performance.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

test("counts each full collection, not the young generation's", async () => {
  const count = countFullCollections();
  gc({ type: "major" });
  gc({ type: "major" });
  await settle(count, 2);
  // V8 may run one of its own meanwhile: at least the two asked for.
  assert.ok(count() >= 2, `${count()} full collections`);
  // Entries come in order: once the major after them is counted, the minors were seen too.
  const before = count();
  for (let i = 0; i < 5; i++) gc({ type: "minor" });
  gc({ type: "major" });
  await settle(count, before + 1);
  const added = count() - before;
  assert.ok(added >= 1 && added < 5, `${added} counted for 5 minor and 1 full collection`);
});
