// A client generated from the committed OpenAPI document (openapi-typescript types in
// test/generated/openapi.ts, kept current by `npm run openapi:check`, and openapi-fetch) drives
// a real gateway over a real star process: what the document promises is what a generated
// client gets, and this file only compiles while the document describes these calls.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import createClient from "openapi-fetch";
import type { components, paths } from "../generated/openapi.ts";
import type { Gateway } from "../harness/gateway.ts";
import { type Stack, startStack } from "../harness/stack.ts";

type Schemas = components["schemas"];

let stack: Stack<Gateway> | undefined;
let client: ReturnType<typeof createClient<paths, "application/json">>;

before(async () => {
  stack = await startStack("nova-client-", { gateway: { checkResponses: true } });
  client = createClient<paths, "application/json">({ baseUrl: stack.gw.base });
});

after(() => stack?.close());

test("a generated client creates a bucket and a stream, appends and reads", async () => {
  const bucket = `client-${process.pid}`;
  const created = await client.POST("/v1/buckets", {
    params: { header: { "nova-request-token": "first" } },
    body: { name: bucket, default_class: "CLASS_EXPRESS" },
  });
  assert.equal(created.response.status, 201, JSON.stringify(created.error));
  const descriptor: Schemas["Bucket"] | undefined = created.data;
  assert.equal(descriptor?.name, bucket);
  assert.equal(descriptor?.default_class, "CLASS_EXPRESS");

  const key = "orders/eu";
  const stream = await client.POST("/v1/buckets/{bucket}/streams", {
    params: { path: { bucket } },
    body: { key, retention_max_age_ms: 0 },
  });
  assert.equal(stream.response.status, 201, JSON.stringify(stream.error));
  assert.equal(stream.data?.key, key);
  assert.equal(stream.data?.class, "CLASS_EXPRESS");

  const path = { bucket, key };
  const raw = await client.POST("/v1/buckets/{bucket}/streams/{key}/records", {
    params: { path, query: { int64: "string" } },
    body: {
      records: [
        { body: "héllo 🌍", headers: [{ name: "type", value: "greeting" }] },
        { body: "second", headers: [["k", "v"]], timestamp_ms: 1709481600000 },
      ],
    },
  });
  assert.equal(raw.response.status, 200, JSON.stringify(raw.error));
  const ack: Schemas["AppendAck"] | undefined = raw.data;
  assert.deepEqual([ack?.start.seq_num, ack?.end.seq_num], ["0", "2"]);

  const binary = await client.POST("/v1/buckets/{bucket}/streams/{key}/records", {
    params: { path, header: { "nova-format": "base64" } },
    body: { records: [{ body: Buffer.from([0, 255, 1]).toString("base64") }], match_seq_num: 2 },
  });
  assert.equal(binary.response.status, 200, JSON.stringify(binary.error));

  const read = await client.GET("/v1/buckets/{bucket}/streams/{key}/records", {
    params: { path, query: { seq_num: "0", count: "2", int64: "string" } },
  });
  assert.equal(read.response.status, 200, JSON.stringify(read.error));
  const batch: Schemas["ReadBatch"] | undefined = read.data;
  assert.deepEqual(
    batch?.records.map((r) => [r.seq_num, r.body, r.headers]),
    [
      ["0", "héllo 🌍", [{ name: "type", value: "greeting" }]],
      ["1", "second", [{ name: "k", value: "v" }]],
    ],
  );
  assert.equal(batch?.records[1]?.timestamp_ms, "1709481600000");
  assert.equal(batch?.tail.seq_num, "3");

  const asBase64 = await client.GET("/v1/buckets/{bucket}/streams/{key}/records", {
    params: { path, query: { seq_num: "2", format: "base64" } },
  });
  assert.equal(asBase64.data?.records[0]?.body, "AP8B");

  const tail = await client.GET("/v1/buckets/{bucket}/streams/{key}/records/tail", {
    params: { path },
  });
  assert.equal(tail.data?.tail.seq_num, 3);

  const got = await client.GET("/v1/buckets/{bucket}/streams/{key}", { params: { path } });
  assert.equal(got.data?.stream.key, key);
  assert.equal(got.data?.fencing_token, "");
});

test("the generated client sees typed error bodies", async () => {
  const missing = await client.GET("/v1/buckets/{bucket}/streams/{key}/records/tail", {
    params: { path: { bucket: `client-${process.pid}`, key: "nope" } },
  });
  assert.equal(missing.response.status, 404);
  const error: Schemas["ErrorBody"] | undefined = missing.error;
  assert.equal(error?.code, "stream_not_found");
  assert.equal(error?.retryable, false);

  const bad = await client.POST("/v1/buckets", { body: { name: "Not A Bucket" } });
  assert.equal(bad.response.status, 400);
  assert.equal(bad.error?.code, "invalid_argument");
  assert.equal(bad.error?.field, "name");
});
