// delete_on_empty over real sockets: a stream whose records are all trimmed, and that is old
// enough, is deleted by its star; one that still holds records is not; bucket defaults apply to
// new streams; S2's face reads and writes it as `delete_on_empty.min_age_secs`.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { Gateway } from "../harness/gateway.ts";
import { http } from "../harness/http.ts";
import { type Stack, startStack } from "../harness/stack.ts";
import { waitFor } from "../harness/wait.ts";

let stack: Stack<Gateway>;

before(async () => {
  stack = await startStack("nova-delete-on-empty-", {
    starArgs: ["--retention-interval-ms", "100"],
  });
});
after(() => stack?.close());

const base = () => stack.gw.base;

test("a stream with all records trimmed is deleted once old enough; one with records stays", async () => {
  const bucket = `doe-${process.pid}`;
  assert.equal(
    (
      await http(base(), "POST", "/v1/buckets", {
        name: bucket,
        // Longer than the test: a new stream is empty, so one made with a short age could go
        // before its first append.
        default_delete_on_empty_min_age_ms: 600_000,
      })
    ).status,
    201,
  );
  for (const key of ["emptied", "kept"]) {
    const made = await http(base(), "POST", `/v1/buckets/${bucket}/streams`, { key });
    assert.equal(made.json.delete_on_empty_min_age_ms, 600_000, "the bucket's default");
    const ack = await http(base(), "POST", `/v1/buckets/${bucket}/streams/${key}/records`, {
      records: [{ body: "x" }, { body: "y" }],
    });
    assert.equal(ack.status, 200, ack.text);
  }
  const emptied = `/v1/buckets/${bucket}/streams/emptied`;
  for (const key of ["emptied", "kept"]) {
    const short = await http(base(), "PATCH", `/v1/buckets/${bucket}/streams/${key}`, {
      delete_on_empty_min_age_ms: 1,
    });
    assert.equal(short.status, 200, short.text);
  }
  assert.equal((await http(base(), "POST", `${emptied}/trim`, { seq_num: 2 })).status, 204);
  await waitFor(async () => (await http(base(), "GET", emptied)).status === 404, {
    message: "the emptied stream deleted",
  });
  // Both streams are open on the star and looked at in the same rounds.
  const kept = await http(base(), "GET", `/v1/buckets/${bucket}/streams/kept`);
  assert.equal(kept.status, 200);
  const read = await http(base(), "GET", `/v1/buckets/${bucket}/streams/kept/records?seq_num=0`);
  assert.equal(read.json.records.length, 2);
});

test("a stream made with delete_on_empty and never used is deleted once old enough", async () => {
  const bucket = `doe-unused-${process.pid}`;
  assert.equal((await http(base(), "POST", "/v1/buckets", { name: bucket })).status, 201);
  const path = `/v1/buckets/${bucket}/streams/unused`;
  const made = await http(base(), "POST", `/v1/buckets/${bucket}/streams`, {
    key: "unused",
    delete_on_empty_min_age_ms: 1,
  });
  assert.equal(made.status, 201, made.text);
  // Only its descriptor is asked for: nothing opens the stream but its creation.
  await waitFor(async () => (await http(base(), "GET", path)).status === 404, {
    message: "the unused stream deleted",
  });
});

test("reconfigured on a stream, and through S2's face as seconds", async () => {
  const basin = `doe-s2-${process.pid}`;
  const s2 = { "s2-basin": basin };
  assert.equal((await http(base(), "POST", "/v1/basins", { basin })).status, 201);
  const created = await http(
    base(),
    "POST",
    "/v1/streams",
    { stream: "s", config: { delete_on_empty: { min_age_secs: 600 } } },
    s2,
  );
  assert.equal(created.status, 201, created.text);
  const config = await http(base(), "GET", "/v1/streams/s", undefined, s2);
  assert.deepEqual(config.json.delete_on_empty, { min_age_secs: 600 });
  const nova = await http(base(), "GET", `/v1/buckets/${basin}/streams/s`);
  assert.equal(nova.json.stream.delete_on_empty_min_age_ms, 600_000);
  const off = await http(base(), "PATCH", `/v1/buckets/${basin}/streams/s`, {
    delete_on_empty_min_age_ms: 0,
  });
  assert.equal(off.json.delete_on_empty_min_age_ms, 0);
  const back = await http(base(), "GET", "/v1/streams/s", undefined, s2);
  assert.deepEqual(back.json.delete_on_empty, { min_age_secs: 0 });
});
