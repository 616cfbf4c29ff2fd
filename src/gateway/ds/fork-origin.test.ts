import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import { forkOrigin, parseForkOrigin } from "./fork-origin.ts";

test("an origin reads back as written, whatever its key", () => {
  fc.assert(
    fc.property(fc.string(), fc.uuid(), fc.string(), fc.string(), (key, id, offset, sub) => {
      const o = { key, id, offset, sub };
      assert.deepEqual(parseForkOrigin(forkOrigin(o)), o);
    }),
  );
});

test("no origin, or one this face did not write, is not a fork", () => {
  for (const text of ["", "x", "[]", '["a","b","c"]', '["a","b","c",4]', "{}"]) {
    assert.equal(parseForkOrigin(text), undefined, text);
  }
});
