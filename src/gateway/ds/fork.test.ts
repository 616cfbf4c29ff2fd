import assert from "node:assert/strict";
import { test } from "node:test";
import { HttpError } from "../errors/index.ts";
import { forkHeaders } from "./fork.ts";

const zero = "0000000000000000_0000000000000000";
const refused = (status: number, field: string) => (e: unknown) =>
  e instanceof HttpError && e.status === status && e.message.startsWith(`${field}: `);

test("the source is the stream path after /v1/stream/, percent-decoded", () => {
  assert.equal(forkHeaders({}), undefined);
  assert.deepEqual(forkHeaders({ "stream-forked-from": "/v1/stream/a%2Fb" }), {
    sourceKey: "a/b",
    offset: undefined,
    sub: 0n,
  });
  assert.deepEqual(
    forkHeaders({ "stream-forked-from": "/ds/v1/stream/x", "stream-fork-offset": zero }),
    { sourceKey: "x", offset: 0n, sub: 0n },
  );
  for (const from of ["x", "/v1/stream/", "/v1/stream/%zz"]) {
    assert.throws(
      () => forkHeaders({ "stream-forked-from": from }),
      refused(400, "stream-forked-from"),
    );
  }
});

test("fork offsets and sub-offsets are checked; a sub-offset above 0 needs an offset", () => {
  const from = { "stream-forked-from": "/v1/stream/x" };
  assert.throws(
    () => forkHeaders({ "stream-fork-offset": zero }),
    refused(400, "stream-forked-from"),
  );
  assert.throws(
    () => forkHeaders({ "stream-fork-sub-offset": "0" }),
    refused(400, "stream-forked-from"),
  );
  for (const bad of ["-1", "12", "now!"]) {
    assert.throws(
      () => forkHeaders({ ...from, "stream-fork-offset": bad }),
      (e: unknown) => e instanceof HttpError && e.status === 400,
      bad,
    );
  }
  for (const bad of ["-1", "1.5", "x", "01"]) {
    assert.throws(
      () => forkHeaders({ ...from, "stream-fork-sub-offset": bad }),
      refused(400, "stream-fork-sub-offset"),
    );
  }
  assert.deepEqual(forkHeaders({ ...from, "stream-fork-sub-offset": "0" }), {
    sourceKey: "x",
    offset: undefined,
    sub: 0n,
  });
  assert.throws(
    () => forkHeaders({ ...from, "stream-fork-sub-offset": "2" }),
    refused(400, "stream-fork-sub-offset"),
  );
  assert.deepEqual(
    forkHeaders({ ...from, "stream-fork-offset": zero, "stream-fork-sub-offset": "2" }),
    { sourceKey: "x", offset: 0n, sub: 2n },
  );
});
