import assert from "node:assert/strict";
import { test } from "node:test";
import { encodeLogObject, encodeLogVoid } from "../../contract/codec/index.ts";
import { createMemoryStore } from "../../platform/objstore/index.ts";
import { fenceLog } from "../fleet/log-fence.ts";
import { logKey, logPrefix } from "../storage/keys.ts";
import { replayStored } from "./replay.test-helper.ts";

test("a void takes its number: replay goes past it, and leaves it", async () => {
  const store = createMemoryStore();
  // Numbers whose PUT failed (a full disk, a 5xx): voided, holding nothing.
  for (const n of [0n, 1n]) {
    await store.put(logKey("star", n), encodeLogVoid({ by: "star", epoch: 0 }));
  }
  const result = await replayStored(store);
  assert.equal(result.next, 2n, "the next log object takes a number no void holds");
  // A fence's voids keep a lost member from landing at their numbers: they stay.
  assert.equal((await store.list(logPrefix("star"))).objects.length, 2);
});

test("a takeover's replay leaves the fence's voids: a lost member's late PUT cannot land", async () => {
  const store = createMemoryStore();
  const entries = [
    {
      streamId: "x",
      bucket: "b",
      key: "k",
      firstSeqNum: 0n,
      records: [{ body: Buffer.from("r"), headers: [], timestampMs: 1n }],
    },
  ];
  await store.put(logKey("s1", 0n), encodeLogObject(entries));
  const fenced = await fenceLog(store, "s1", 0, 2, { member: "s2", epoch: 0 });
  assert.ok(fenced.voided.length > 0);
  await replayStored(store, "s1", { inFlight: 2, epoch: 0 });
  for (const n of fenced.voided) {
    const late = await store.putIf(logKey("s1", n), encodeLogObject(entries), { ifNoneMatch: "*" });
    assert.equal(late, undefined, `the lost member's PUT at ${n} is refused`);
  }
});
