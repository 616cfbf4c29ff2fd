import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import { encodeLogObject } from "./log-object.ts";
import { decodeLogVoid, encodeLogVoid, isOwnVoid, VOID_MAGIC } from "./log-void.ts";

test("a void decodes to what was encoded", () => {
  fc.assert(
    fc.property(fc.string(), fc.nat(), (by, epoch) => {
      assert.deepEqual(decodeLogVoid(encodeLogVoid({ by, epoch })), { by, epoch });
    }),
  );
});

test("a log object, a cut void and other bytes are not voids", () => {
  const entry = {
    streamId: "s",
    bucket: "b",
    key: "k",
    firstSeqNum: 0n,
    records: [{ headers: [], body: Buffer.from("x"), timestampMs: 1n }],
  };
  assert.equal(decodeLogVoid(encodeLogObject([entry])), undefined);
  assert.equal(decodeLogVoid(encodeLogVoid({ by: "s1", epoch: 3 }).subarray(0, 6)), undefined);
  assert.equal(decodeLogVoid(VOID_MAGIC), undefined);
  assert.equal(decodeLogVoid(new Uint8Array(0)), undefined);
  assert.equal(
    decodeLogVoid(Buffer.concat([VOID_MAGIC, Buffer.from('{"by":1,"epoch":2}')])),
    undefined,
  );
  fc.assert(
    fc.property(fc.uint8Array(), (bytes) => {
      fc.pre(!Buffer.from(bytes.subarray(0, 4)).equals(VOID_MAGIC));
      assert.equal(decodeLogVoid(bytes), undefined);
    }),
  );
});

test("a void is the log's own only with its star and its epoch", () => {
  assert.ok(isOwnVoid({ by: "s1", epoch: 3 }, "s1", 3));
  // A fence: by another member, or by the same star restarted at a newer epoch.
  assert.ok(!isOwnVoid({ by: "s2", epoch: 3 }, "s1", 3));
  assert.ok(!isOwnVoid({ by: "s1", epoch: 4 }, "s1", 3));
  assert.ok(!isOwnVoid(undefined, "s1", 3));
});
