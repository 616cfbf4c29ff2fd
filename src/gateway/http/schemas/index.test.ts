import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import Fastify from "fastify";
import { type TSchema, Type } from "typebox";
import { Compile } from "typebox/compile";
import {
  appendAckToJson,
  parseJsonExact,
  readBatchToJson,
  streamToJson,
  stringifyJsonExact,
} from "../../translate/index.ts";
import {
  AppendQuery,
  CreateHeaders,
  FormatHeaders,
  Int64Query,
  ListQuery,
  ReadQuery,
  type SharedSchema,
  StreamParams,
  schemaContext,
  sharedSchemas,
} from "./index.ts";
import * as plain from "./plain.gen.ts";
import { routeSchemas } from "./routes.ts";

const validator = (id: keyof typeof schemaContext) => Compile(schemaContext, Type.Ref(id));
const valid = (id: keyof typeof schemaContext, value: unknown) => validator(id).Check(value);

test("the plain schemas the gateway loads are TypeBox's, member for member", () => {
  // Compared as structured clones: string-keyed enumerable members only, so neither TypeBox's own
  // (~kind, not enumerable) nor the symbol Fastify marks a route's schemas with count, while a
  // value JSON cannot hold (undefined, NaN) differs and a function throws. Staleness: npm run
  // openapi:check.
  assert.deepStrictEqual(structuredClone(plain.routeSchemas), structuredClone(routeSchemas));
  assert.deepStrictEqual(structuredClone(plain.sharedSchemas), structuredClone(sharedSchemas));
});

test("every shared schema has its key as $id, a description and examples", () => {
  assert.equal(new Set(sharedSchemas.map((s) => s.$id)).size, sharedSchemas.length);
  assert.deepEqual(
    sharedSchemas.map((s) => s.$id),
    Object.keys(schemaContext),
  );
  for (const schema of sharedSchemas) {
    const key = schema.$id;
    assert.equal(typeof schema.description, "string", key);
    assert.ok(Array.isArray(schema.examples) && schema.examples.length > 0, key);
  }
});

test("every shared schema compiles and accepts its own examples", () => {
  for (const schema of sharedSchemas) {
    const key = schema.$id;
    const v = Compile(schemaContext, schema);
    for (const example of schema.examples) {
      assert.ok(v.Check(example), `${key}: ${JSON.stringify(v.Errors(example)[1])}`);
    }
  }
});

test("the route-local schemas compile", () => {
  for (const schema of [
    StreamParams,
    Int64Query,
    AppendQuery,
    ReadQuery,
    ListQuery,
    FormatHeaders,
    CreateHeaders,
  ]) {
    Compile(schema);
  }
  assert.ok(
    Compile(ReadQuery).Check({
      seq_num: "18446744073709551615",
      clamp: "true",
      wait: "60",
      format: "base64",
    }),
  );
  assert.ok(!Compile(ReadQuery).Check({ seq_num: "-1" }));
  assert.ok(!Compile(ReadQuery).Check({ clamp: "yes" }));
  assert.ok(!Compile(ReadQuery).Check({ cursor: "1" }));
  assert.ok(!Compile(AppendQuery).Check({ format: "hex" }));
});

const T = 1709481600000;

test("the contract's example objects validate", () => {
  assert.ok(
    valid("AppendInput", {
      records: [
        { body: "...", headers: [{ name: "...", value: "..." }], timestamp_ms: 1709481600000 },
      ],
      match_seq_num: 42,
      fencing_token: "...",
    }),
  );
  assert.ok(valid("AppendInput", { records: [{}] }));
  assert.ok(
    valid("AppendInput", { records: [{ headers: [["k", "v"], { name: "k", value: "" }] }] }),
  );
  assert.ok(
    valid("AppendAck", {
      start: { seq_num: 100, timestamp_ms: T },
      end: { seq_num: 103, timestamp_ms: T },
      tail: { seq_num: 103, timestamp_ms: T },
    }),
  );
  assert.ok(
    valid("ReadBatch", {
      records: [
        { seq_num: 100, timestamp_ms: T, headers: [{ name: "a", value: "b" }], body: "..." },
      ],
      tail: { seq_num: 150, timestamp_ms: T },
    }),
  );
  assert.ok(
    valid("ErrorBody", {
      code: "stream_not_found",
      message: "human text",
      retryable: false,
      extra: 1,
    }),
  );
  assert.ok(valid("TrimBody", { seq_num: "18446744073709551615" }));
  assert.ok(valid("FenceBody", { fencing_token: "" }));
  assert.ok(valid("StreamReconfiguration", { retention_max_age_ms: 0 }));
  // Record times are int64 on append as everywhere: negative ones too.
  assert.ok(valid("AppendInput", { records: [{ timestamp_ms: -1 }] }));
  assert.ok(valid("AppendInput", { records: [{ timestamp_ms: "-9223372036854775808" }] }));
  // On a create UNSPECIFIED is the default, as leaving the field out is.
  assert.ok(valid("CreateStreamBody", { key: "k", class: "CLASS_UNSPECIFIED" }));
  assert.ok(
    valid("CreateBucketBody", {
      name: "abc",
      default_producer_policy: "PRODUCER_POLICY_UNSPECIFIED",
    }),
  );
  assert.ok(valid("TokenRequest", { key_id: "k", secret: "s", scope: "nova:read" }));
  assert.ok(
    valid("Position", { seq_num: "18446744073709551615", timestamp_ms: "-9223372036854775808" }),
  );
});

test("bad inputs do not validate", () => {
  const bad: [keyof typeof schemaContext, unknown][] = [
    ["AppendInput", {}],
    ["AppendInput", []],
    ["AppendInput", null],
    ["AppendInput", { records: {} }],
    ["AppendInput", { records: [null] }],
    ["AppendInput", { records: [{ body: 5 }] }],
    ["AppendInput", { records: [{ headers: {} }] }],
    ["AppendInput", { records: [{ headers: ["nv"] }] }],
    ["AppendInput", { records: [{ headers: [["n", 1]] }] }],
    ["AppendInput", { records: [{ headers: [{ name: "n" }] }] }],
    ["AppendInput", { records: [{ headers: [{ value: "v" }] }] }],
    ["AppendInput", { records: [{ headers: [{ name: "n", value: "v", x: 1 }] }] }],
    ["AppendInput", { records: [{}], match_seq_num: -1 }],
    ["AppendInput", { records: [{}], fencing_token: 1 }],
    ["AppendInput", { records: [] }],
    ["AppendInput", { records: [{}], extra: 1 }],
    ["AppendInput", { records: [{ bdy: "" }] }],
    ["AppendInput", { records: [{ body: null }] }],
    ["AppendInput", { records: [{ headers: [["k"]] }] }],
    ["AppendInput", { records: [{ headers: [["k", "v", "w"]] }] }],
    ["AppendInput", { records: [{ headers: [{ name: "", value: "v" }] }] }],
    ["AppendInput", { records: [{ headers: Array.from({ length: 101 }, () => ["k", "v"]) }] }],
    ["AppendInput", { records: [{ timestamp_ms: "-12345678901234567890" }] }],
    ["AppendInput", { records: [{ timestamp_ms: 1.5 }] }],
    ["AppendInput", { records: [{}], match_seq_num: "1.5" }],
    ["AppendInput", { records: [{}], match_seq_num: "123456789012345678901" }],
    ["AppendInput", { records: [{}], fencing_token: "x".repeat(49) }],
    ["Position", { seq_num: -1, timestamp_ms: 0 }],
    ["Position", { seq_num: 1.5, timestamp_ms: 0 }],
    ["TrimBody", {}],
    ["TrimBody", { seq_num: 1, timestamp_ms: 2 }],
    ["CreateStreamBody", { class: "CLASS_EXPRESS" }],
    ["CreateStreamBody", { key: "k", class: "CLASS_NOPE" }],
    ["StreamReconfiguration", { class: "CLASS_UNSPECIFIED" }],
    ["BucketConfig", { default_timestamping_mode: "TIMESTAMPING_MODE_UNSPECIFIED" }],
    ["StreamReconfiguration", { retention_max_age_ms: null }],
    ["StreamReconfiguration", { key: "k" }],
    ["CreateBucketBody", { name: "-bad" }],
    ["BucketConfig", { name: "abc" }],
    ["TokenRequest", { key_id: "k" }],
    ["ErrorBody", { code: "x", message: "y" }],
  ];
  for (const [id, value] of bad)
    assert.ok(!valid(id, value), `${id} accepted ${JSON.stringify(value)}`);
});

const uint64 = fc.bigInt({ min: 0n, max: 2n ** 64n - 1n });
const int64 = fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n });
const mode = fc.constantFrom("number" as const, "string" as const);
/** What a client sees: the translation's output through the wire text. */
const wire = (v: unknown) => parseJsonExact(stringifyJsonExact(v));

test("translation output matches the response schemas in both int64 modes", () => {
  const position = fc.record({ seq_num: uint64.map(String), timestamp_ms: int64.map(String) });
  fc.assert(
    fc.property(position, position, mode, fc.uint8Array(), (p, q, m, body) => {
      const record = {
        seq_num: p.seq_num,
        timestamp_ms: p.timestamp_ms,
        body: Buffer.from(body),
        headers: [],
      };
      assert.ok(
        valid("ReadBatch", wire(readBatchToJson({ records: [record], tail: q }, "base64", m))),
      );
      assert.ok(valid("AppendAck", wire(appendAckToJson({ start: p, end: q, tail: q }, m))));
    }),
  );
  fc.assert(
    fc.property(uint64, int64, mode, (n, t, m) => {
      const stream = {
        stream_id: "id",
        bucket: "shop",
        key: "k",
        class: "CLASS_EXPRESS" as const,
        producer_policy: "PRODUCER_POLICY_ANY" as const,
        retention_max_age_ms: String(n),
        retention_max_bytes: "0",
        batch_max_bytes: String(n),
        batch_max_records: 1,
        batch_max_delay_ms: 0,
        throughput_max_bytes_per_second: "0",
        timestamping_mode: "TIMESTAMPING_MODE_ARRIVAL" as const,
        timestamping_uncapped: false,
        delete_on_empty_min_age_ms: "0",
        content_type: "",
        expire_idle_ms: "0",
        expires_at_unix_ms: "0",
        fork_origin: "",
        forked: false,
        retired_at_unix_ms: "0",
        creation_token: "",
        creation_digest: "",
        created_at_unix_ms: String(t),
        deleted_at_unix_ms: String(t),
      };
      assert.ok(valid("Stream", wire(streamToJson(stream, m))));
    }),
  );
});

test("in Fastify's own Ajv: shared schemas by $ref, exact digits never rounded", async () => {
  const app = Fastify();
  for (const schema of sharedSchemas) app.addSchema(schema);
  app.post(
    "/append",
    { schema: { body: { $ref: "AppendInput#" }, querystring: AppendQuery } },
    async (req) => ({
      seen: stringifyJsonExact(req.body),
    }),
  );
  app.post("/trim", { schema: { body: { $ref: "TrimBody#" } } }, async () => ({ ok: true }));
  app.get("/read", { schema: { querystring: ReadQuery } }, async (req) => req.query);
  try {
    const append = (payload: unknown) =>
      app.inject({ method: "POST", url: "/append", payload: payload as object });
    // What parseJsonExact gives for a big literal: its digits, which must arrive unrounded.
    const big = await append({
      records: [{ timestamp_ms: "9223372036854775807" }],
      match_seq_num: "18446744073709551615",
    });
    assert.equal(big.statusCode, 200, big.body);
    assert.match(big.json().seen, /"9223372036854775807".*"18446744073709551615"/);
    assert.equal((await append({ records: [{ timestamp_ms: 5 }] })).statusCode, 200);
    assert.equal((await append({ records: [] })).statusCode, 400);
    assert.equal(
      (await append({ records: [{ headers: [["k", "v"], { name: "k", value: "v" }] }] }))
        .statusCode,
      200,
    );
    assert.equal((await append({ records: [{}], match_seq_num: true })).statusCode, 400);
    assert.equal((await append({ records: [{}], match_seq_num: null })).statusCode, 400);
    const trim = (payload: object) => app.inject({ method: "POST", url: "/trim", payload });
    assert.equal((await trim({ seq_num: 1 })).statusCode, 200);
    assert.equal((await trim({ seq_num: 1, timestamp_ms: 2 })).statusCode, 400);
    const read = await app.inject({
      method: "GET",
      url: "/read?seq_num=18446744073709551615&clamp=true",
    });
    assert.deepEqual(read.json(), { seq_num: "18446744073709551615", clamp: "true" });
  } finally {
    await app.close();
  }
});

test("every route documents its responses with schemas that resolve, errors as ErrorBody", () => {
  for (const [name, route] of Object.entries(routeSchemas)) {
    const responses = route.response as Record<string, unknown>;
    assert.ok(
      Object.keys(responses).some((s) => s.startsWith("2")),
      `${name}: a success`,
    );
    for (const [status, response] of Object.entries(responses)) {
      const content = (response as { content?: Record<string, { schema: unknown }> }).content;
      const schemas =
        content === undefined ? [response] : Object.values(content).map((m) => m.schema);
      for (const schema of schemas) Compile(schemaContext, schema as TSchema);
      // Its own description, or (as in the OpenAPI document) the referenced schema's.
      const { description, $ref } = response as { description?: string; $ref?: string };
      const referenced = schemaContext[$ref as keyof typeof schemaContext] as unknown as
        | SharedSchema
        | undefined;
      assert.equal(typeof (description ?? referenced?.description), "string", `${name} ${status}`);
      // Every error is an ErrorBody; /readyz's 503 is the load balancer's "not ready".
      if (Number(status) >= 400 && name !== "readyz") assert.equal($ref, "ErrorBody", name);
    }
    assert.ok(responses[500], `${name}: 500 internal`);
  }
});
