import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import type { Bucket__Output } from "../../gen/nova/v1/Bucket.ts";
import type { Stream__Output } from "../../gen/nova/v1/Stream.ts";
import { assertHttpError } from "../errors/assert-http-error.test-helper.ts";
import {
  bucketReconfigurationFromJson,
  bucketToJson,
  createBucketFromJson,
  createStreamFromJson,
  getStreamResponseToJson,
  listBucketsResponseToJson,
  listStreamsResponseToJson,
  requireDescriptor,
  streamReconfigurationFromJson,
  streamToJson,
} from "./config-json.ts";
import { parseJsonExact, stringifyJsonExact } from "./json-exact.ts";

const stream: Stream__Output = {
  stream_id: "s-1",
  bucket: "logs",
  key: "a/b",
  class: "CLASS_EXPRESS",
  producer_policy: "PRODUCER_POLICY_FENCED",
  retention_max_age_ms: "86400000",
  retention_max_bytes: "18446744073709551615",
  batch_max_bytes: "1048576",
  batch_max_records: 1000,
  batch_max_delay_ms: 5,
  throughput_max_bytes_per_second: "0",
  timestamping_mode: "TIMESTAMPING_MODE_ARRIVAL",
  timestamping_uncapped: false,
  delete_on_empty_min_age_ms: "600000",
  content_type: "",
  expire_idle_ms: "0",
  expires_at_unix_ms: "0",
  fork_origin: "",
  forked: false,
  retired_at_unix_ms: "0",
  creation_token: "tok",
  creation_digest: "the config the create asked for",
  created_at_unix_ms: "1709481600000",
  deleted_at_unix_ms: "0",
};

const bucket: Bucket__Output = {
  name: "logs",
  location: "s3://b",
  create_stream_on_append: true,
  create_stream_on_read: false,
  default_class: "CLASS_STANDARD",
  default_producer_policy: "PRODUCER_POLICY_ANY",
  default_retention_max_age_ms: "0",
  default_retention_max_bytes: "9007199254740993",
  default_batch_max_bytes: "1048576",
  default_batch_max_records: 1000,
  default_batch_max_delay_ms: 0,
  default_throughput_max_bytes_per_second: "0",
  default_timestamping_mode: "TIMESTAMPING_MODE_CLIENT_PREFER",
  default_timestamping_uncapped: true,
  default_delete_on_empty_min_age_ms: "0",
  creation_token: "",
  creation_digest: "",
  streams_swept: false,
  created_at_unix_ms: "1",
  deleted_at_unix_ms: "0",
};

const uint64 = fc.bigInt({ min: 0n, max: 2n ** 64n - 1n });

test("CreateStream: the key and only the fields given", () => {
  assert.deepEqual(createStreamFromJson({ key: "a/b" }), { key: "a/b", config: {} });
  assert.deepEqual(
    createStreamFromJson({
      key: "ключ",
      class: "CLASS_EXPRESS",
      retention_max_age_ms: 0,
      retention_max_bytes: "18446744073709551615",
      batch_max_records: 10,
      timestamping_mode: "TIMESTAMPING_MODE_CLIENT_REQUIRE",
      timestamping_uncapped: false,
    }),
    {
      key: "ключ",
      config: {
        class: "CLASS_EXPRESS",
        retention_max_age_ms: "0",
        retention_max_bytes: "18446744073709551615",
        batch_max_records: 10,
        timestamping_mode: "TIMESTAMPING_MODE_CLIENT_REQUIRE",
        timestamping_uncapped: false,
      },
    },
  );
});

test("ReconfigureStream: absent is unchanged, present is set, zero included", () => {
  assert.deepEqual(streamReconfigurationFromJson({}), {});
  assert.deepEqual(
    streamReconfigurationFromJson({
      retention_max_age_ms: 0,
      batch_max_delay_ms: 0,
      timestamping_uncapped: false,
    }),
    { retention_max_age_ms: "0", batch_max_delay_ms: 0, timestamping_uncapped: false },
  );
  assert.deepEqual(streamReconfigurationFromJson({ producer_policy: "PRODUCER_POLICY_ANY" }), {
    producer_policy: "PRODUCER_POLICY_ANY",
  });
});

test("uint64 config values survive JSON -> proto -> descriptor -> JSON exactly", () => {
  fc.assert(
    fc.property(
      uint64,
      uint64,
      fc.constantFrom("number" as const, "string" as const),
      (age, bytes, mode) => {
        const body = parseJsonExact(
          stringifyJsonExact({ retention_max_age_ms: age, retention_max_bytes: bytes }),
        );
        const config = streamReconfigurationFromJson(body);
        const served = {
          ...stream,
          ...(config as { retention_max_age_ms: string; retention_max_bytes: string }),
        };
        const out = streamToJson(served, mode);
        const expect = (n: bigint) => (mode === "string" ? n.toString() : n);
        assert.deepEqual(
          [out.retention_max_age_ms, out.retention_max_bytes],
          [expect(age), expect(bytes)],
        );
      },
    ),
  );
});

const bad = (fn: () => unknown, field: string) =>
  assertHttpError(fn, { status: 400, code: "invalid_argument", field });

test("bad stream configs are refused, naming the field", () => {
  bad(() => createStreamFromJson({}), "key");
  bad(() => createStreamFromJson({ key: "" }), "key");
  bad(() => createStreamFromJson({ key: "x".repeat(513) }), "key");
  bad(() => createStreamFromJson({ key: 5 }), "key");
  bad(() => createStreamFromJson([]), "body");
  bad(() => createStreamFromJson({ key: "k", klass: "CLASS_EXPRESS" }), "klass");
  bad(() => createStreamFromJson({ key: "k", class: "EXPRESS" }), "class");
  bad(() => createStreamFromJson({ key: "k", class: null }), "class");
  bad(() => createStreamFromJson({ key: "k", retention_max_bytes: -1 }), "retention_max_bytes");
  bad(() => createStreamFromJson({ key: "k", batch_max_records: 2 ** 32 }), "batch_max_records");
  bad(
    () => createStreamFromJson({ key: "k", timestamping_uncapped: "yes" }),
    "timestamping_uncapped",
  );
  bad(() => streamReconfigurationFromJson({ class: "CLASS_UNSPECIFIED" }), "class");
  bad(
    () => streamReconfigurationFromJson({ timestamping_mode: "TIMESTAMPING_MODE_UNSPECIFIED" }),
    "timestamping_mode",
  );
  bad(() => streamReconfigurationFromJson({ retention_max_age_ms: null }), "retention_max_age_ms");
  bad(() => streamReconfigurationFromJson({ key: "k" }), "key");
  bad(
    () => streamReconfigurationFromJson({ throughput_max_bytes_per_second: 1.5 }),
    "throughput_max_bytes_per_second",
  );
  const e = bad(() => streamReconfigurationFromJson({ class: "CLASS_UNSPECIFIED" }), "class");
  assert.match(e.message, /CLASS_STANDARD, CLASS_EXPRESS/);
});

test("CreateBucket and ReconfigureBucket", () => {
  assert.deepEqual(createBucketFromJson({ name: "my-bucket" }), { name: "my-bucket", config: {} });
  assert.deepEqual(
    createBucketFromJson({
      name: "abc",
      location: "",
      create_stream_on_append: true,
      default_class: "CLASS_EXPRESS",
      default_retention_max_age_ms: 7,
    }),
    {
      name: "abc",
      config: {
        location: "",
        create_stream_on_append: true,
        default_class: "CLASS_EXPRESS",
        default_retention_max_age_ms: "7",
      },
    },
  );
  assert.deepEqual(
    bucketReconfigurationFromJson({ create_stream_on_read: false, default_batch_max_records: 0 }),
    {
      create_stream_on_read: false,
      default_batch_max_records: 0,
    },
  );
  bad(() => createBucketFromJson({}), "name");
  bad(() => createBucketFromJson({ name: "-ab" }), "name");
  bad(() => createBucketFromJson({ name: "ab" }), "name");
  bad(() => createBucketFromJson({ name: "abc", default_class: "nope" }), "default_class");
  bad(() => createBucketFromJson({ name: "abc", location: 1 }), "location");
  bad(() => bucketReconfigurationFromJson({ name: "abc" }), "name");
  bad(
    () => bucketReconfigurationFromJson({ default_producer_policy: "PRODUCER_POLICY_UNSPECIFIED" }),
    "default_producer_policy",
  );
  bad(
    () => bucketReconfigurationFromJson({ create_stream_on_append: null }),
    "create_stream_on_append",
  );
});

test("Stream out: every field; deleted_at_unix_ms only on a tombstone", () => {
  assert.equal(
    stringifyJsonExact(streamToJson(stream, "number")),
    '{"bucket":"logs","key":"a/b","stream_id":"s-1","class":"CLASS_EXPRESS","producer_policy":"PRODUCER_POLICY_FENCED","retention_max_age_ms":86400000,"retention_max_bytes":18446744073709551615,"batch_max_bytes":1048576,"batch_max_records":1000,"batch_max_delay_ms":5,"throughput_max_bytes_per_second":0,"timestamping_mode":"TIMESTAMPING_MODE_ARRIVAL","timestamping_uncapped":false,"delete_on_empty_min_age_ms":600000,"creation_token":"tok","created_at_unix_ms":1709481600000}',
  );
  const deleted = streamToJson({ ...stream, deleted_at_unix_ms: "1709481600001" }, "string");
  assert.equal(deleted.deleted_at_unix_ms, "1709481600001");
  assert.equal(deleted.retention_max_bytes, "18446744073709551615");
  assert.equal(deleted.batch_max_records, 1000);
});

test("Bucket out", () => {
  const out = bucketToJson(bucket, "number");
  assert.equal(out.default_retention_max_bytes, 9007199254740993n);
  assert.equal("deleted_at_unix_ms" in out, false);
  assert.equal(
    bucketToJson({ ...bucket, deleted_at_unix_ms: "-1" }, "string").deleted_at_unix_ms,
    "-1",
  );
  assert.equal(bucketToJson(bucket, "string").default_retention_max_bytes, "9007199254740993");
});

test("GetStream and the listings", () => {
  assert.deepEqual(getStreamResponseToJson({ stream, fencing_token: "", closed: true }, "number"), {
    stream: streamToJson(stream, "number"),
    fencing_token: "",
    closed: true,
  });
  assert.deepEqual(listStreamsResponseToJson({ streams: [stream, stream], next: "c" }, "string"), {
    streams: [streamToJson(stream, "string"), streamToJson(stream, "string")],
    next: "c",
  });
  assert.deepEqual(listBucketsResponseToJson({ buckets: [], next: "" }, "number"), {
    buckets: [],
    next: "",
  });
});

test("a response without its descriptor is 500 internal", () => {
  assertHttpError(
    () => getStreamResponseToJson({ stream: null, fencing_token: "", closed: false }, "number"),
    {
      status: 500,
      code: "internal",
    },
  );
  assert.equal(requireDescriptor(bucket), bucket);
});

test("on a create an UNSPECIFIED enum takes the default, as an absent field does; on PATCH it is refused", () => {
  assert.deepEqual(
    createStreamFromJson({
      key: "k",
      class: "CLASS_UNSPECIFIED",
      producer_policy: "PRODUCER_POLICY_UNSPECIFIED",
      timestamping_mode: "TIMESTAMPING_MODE_UNSPECIFIED",
      retention_max_age_ms: 5,
    }),
    createStreamFromJson({ key: "k", retention_max_age_ms: 5 }),
  );
  assert.deepEqual(
    createBucketFromJson({
      name: "abc",
      default_class: "CLASS_UNSPECIFIED",
      default_producer_policy: "PRODUCER_POLICY_UNSPECIFIED",
      default_timestamping_mode: "TIMESTAMPING_MODE_UNSPECIFIED",
    }),
    createBucketFromJson({ name: "abc" }),
  );
  bad(() => createStreamFromJson({ key: "k", class: "CLASS_NOPE_UNSPECIFIED" }), "class");
  bad(
    () => streamReconfigurationFromJson({ producer_policy: "PRODUCER_POLICY_UNSPECIFIED" }),
    "producer_policy",
  );
});
