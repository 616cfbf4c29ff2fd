import assert from "node:assert/strict";
import { test } from "node:test";
import { MemoryParts } from "./memory-parts.ts";

test("a snapshot reads every part when taken; a part added again replaces the first", () => {
  const parts = new MemoryParts();
  let held = 10;
  parts.add(
    "ring",
    () => held,
    () => 100,
  );
  parts.add(
    "cache",
    () => 1,
    () => 2,
  );
  held = 42;
  assert.deepEqual(parts.snapshot(), [
    { name: "ring", held: 42, bound: 100 },
    { name: "cache", held: 1, bound: 2 },
  ]);
  parts.add(
    "ring",
    () => 0,
    () => 5,
  );
  assert.deepEqual(parts.snapshot()[0], { name: "ring", held: 0, bound: 5 });
});

test("an included component's parts follow, named after its prefix, read when taken", () => {
  const star = new MemoryParts();
  const gateway = new MemoryParts();
  gateway.add(
    "rings",
    () => 1,
    () => 2,
  );
  gateway.include("star_", star);
  let cached = 3;
  star.add(
    "chunk_cache",
    () => cached,
    () => 9,
  );
  cached = 4;
  assert.deepEqual(gateway.snapshot(), [
    { name: "rings", held: 1, bound: 2 },
    { name: "star_chunk_cache", held: 4, bound: 9 },
  ]);
});
