import assert from "node:assert/strict";
import { test } from "node:test";
import { Metadata, status } from "@grpc/grpc-js";
import { detailsMetadata } from "../../contract/proto/index.ts";
import {
  badBase64,
  badHeader,
  badJson,
  badPath,
  badQuery,
  errorBody,
  fromGrpcError,
  HttpError,
  internal,
  invalidArgument,
  MAX_QUOTED_CHARS,
  notUtf8,
  payloadTooLarge,
  resourceExhausted,
  seqNumMismatch,
  unavailable,
  unsupportedMediaType,
} from "./errors.ts";

test("errorBody is { code, message, retryable, ...fields }", () => {
  const e = new HttpError(418, "teapot", "short and stout", { fields: { spout: 1 } });
  assert.deepEqual(errorBody(e), {
    code: "teapot",
    message: "short and stout",
    retryable: false,
    spout: 1,
  });
});

test("errorBody writes bigint fields as strings under int64=string", () => {
  const e = new HttpError(416, "range_not_satisfiable", "beyond", {
    fields: { tail: { seq_num: 2n ** 64n - 1n, timestamp_ms: -5n }, list: [1n], n: 3 },
  });
  assert.deepEqual(errorBody(e, "string"), {
    code: "range_not_satisfiable",
    message: "beyond",
    retryable: false,
    tail: { seq_num: "18446744073709551615", timestamp_ms: "-5" },
    list: ["1"],
    n: 3,
  });
  assert.equal((errorBody(e).tail as { seq_num: bigint }).seq_num, 2n ** 64n - 1n);
});

test("a message or field that quotes a long input is cut, saying how long it was", () => {
  const name = `records[0].${"x".repeat(5000)}`;
  const body = errorBody(invalidArgument(name, "is not a field"));
  const full = `${name}: is not a field`;
  assert.equal(
    body.message,
    `${full.slice(0, MAX_QUOTED_CHARS)}... (${full.length} characters in all)`,
  );
  assert.equal(
    body.field,
    `${name.slice(0, MAX_QUOTED_CHARS)}... (${name.length} characters in all)`,
  );
  const short = errorBody(invalidArgument("records", "is empty"));
  assert.deepEqual([short.message, short.field], ["records: is empty", "records"]);
});

test("field errors name the field in the message and the body", () => {
  for (const [make, status, code] of [
    [invalidArgument, 400, "invalid_argument"],
    [badQuery, 400, "bad_query"],
    [badHeader, 400, "bad_header"],
    [badPath, 400, "bad_path"],
    [badBase64, 400, "bad_base64"],
    [payloadTooLarge, 413, "payload_too_large"],
  ] as const) {
    const e = make("records[3].headers[1].value", "is wrong");
    assert.equal(e.status, status);
    assert.equal(e.code, code);
    assert.equal(e.message, "records[3].headers[1].value: is wrong");
    assert.equal(errorBody(e).field, "records[3].headers[1].value");
    assert.equal(e.retryable, false);
  }
});

test("the gateway's own codes", () => {
  assert.deepEqual(errorBody(badJson("bad", 7)), {
    code: "bad_json",
    message: "bad",
    retryable: false,
    position: 7,
  });
  const media = unsupportedMediaType("text/plain", ["application/json", "application/x-ndjson"]);
  assert.equal(media.status, 415);
  assert.match(media.message, /text\/plain.*application\/json or application\/x-ndjson/);
  const utf8 = notUtf8(2n ** 63n, "headers[0].value");
  assert.equal(utf8.status, 422);
  assert.equal(utf8.code, "not_utf8");
  assert.match(utf8.message, /record 9223372036854775808: headers\[0\]\.value .*format=base64/);
  assert.deepEqual(errorBody(utf8, "string").seq_num, "9223372036854775808");
  const busy = resourceExhausted("too many appends in flight", 2);
  assert.deepEqual(
    [busy.status, busy.retryable, busy.headers],
    [429, true, { "retry-after": "2" }],
  );
  const down = unavailable("gone", { outcomeUnknown: true });
  assert.deepEqual(
    [down.status, down.retryable, down.headers],
    [503, true, { "retry-after": "1" }],
  );
  assert.equal(errorBody(down).outcome, "unknown");
  assert.equal("outcome" in errorBody(unavailable("gone")), false);
  const oops = internal(new Error("socket 10.0.0.7 exploded"));
  assert.deepEqual(errorBody(oops), {
    code: "internal",
    message: "internal error",
    retryable: false,
  });
  assert.equal(seqNumMismatch("42").fields.expected_seq_num, 42n);
});

const grpc = (code: number, details = "the star says", metadata?: Metadata) => ({
  code,
  details,
  metadata,
});

test("every row of the gRPC table", () => {
  const rows: [number, number, string, boolean][] = [
    [status.INVALID_ARGUMENT, 400, "invalid_argument", false],
    [status.UNAUTHENTICATED, 401, "unauthenticated", false],
    [status.PERMISSION_DENIED, 403, "permission_denied", false],
    [status.NOT_FOUND, 404, "stream_not_found", false],
    [status.ALREADY_EXISTS, 409, "already_exists", false],
    [status.ABORTED, 409, "conflict", true],
    [status.FAILED_PRECONDITION, 409, "failed_precondition", false],
    [status.OUT_OF_RANGE, 416, "range_not_satisfiable", false],
    [status.RESOURCE_EXHAUSTED, 429, "resource_exhausted", true],
    [status.CANCELLED, 499, "cancelled", false],
    [status.UNIMPLEMENTED, 501, "unimplemented", false],
    [status.UNAVAILABLE, 503, "unavailable", true],
    [status.DEADLINE_EXCEEDED, 504, "deadline_exceeded", true],
    [status.INTERNAL, 500, "internal", false],
    [status.UNKNOWN, 500, "internal", false],
    [status.DATA_LOSS, 500, "internal", false],
    [status.OK, 500, "internal", false],
  ];
  for (const [code, httpStatus, httpCode, retryable] of rows) {
    const e = fromGrpcError(grpc(code));
    assert.deepEqual(
      [e.status, e.code, e.retryable],
      [httpStatus, httpCode, retryable],
      status[code],
    );
    // Client errors carry the star's words; server errors never leak them.
    assert.equal(
      e.message.includes("the star says"),
      httpStatus < 499 || httpStatus === 501,
      status[code],
    );
  }
});

test("429 and 503 say when to retry", () => {
  assert.deepEqual(fromGrpcError(grpc(status.RESOURCE_EXHAUSTED)).headers, { "retry-after": "1" });
  assert.deepEqual(fromGrpcError(grpc(status.UNAVAILABLE)).headers, { "retry-after": "1" });
});

test("INVALID_ARGUMENT with BatchTooLarge is the gateway's own 413 for the batch cap", () => {
  const said = "batch of 101 content bytes is over the per-batch cap of 100";
  const md = detailsMetadata(status.INVALID_ARGUMENT, said, [
    { type: "BatchTooLarge", value: { content_bytes: "101", limit: "100" } },
  ]);
  const e = fromGrpcError(grpc(status.INVALID_ARGUMENT, said, md));
  assert.deepEqual([e.status, e.code, e.retryable], [413, "payload_too_large", false]);
  assert.equal(e.fields.field, "records");
  assert.match(e.message, /over the per-batch cap of 100/);
  assert.equal(fromGrpcError(grpc(status.INVALID_ARGUMENT, said)).status, 400);
});

test("RESOURCE_EXHAUSTED with ThroughputExceeded is 429 with Retry-After in whole seconds and the figures", () => {
  const said =
    "the stream's throughput cap (2000 bytes/s) would hold this batch longer than 2000 ms";
  const over = (retryAfterMs: string) =>
    fromGrpcError(
      grpc(
        status.RESOURCE_EXHAUSTED,
        said,
        detailsMetadata(status.RESOURCE_EXHAUSTED, said, [
          {
            type: "ThroughputExceeded",
            value: { limit_bytes_per_second: "2000", retry_after_ms: retryAfterMs },
          },
        ]),
      ),
    );
  const e = over("1500");
  assert.deepEqual([e.status, e.code, e.retryable], [429, "resource_exhausted", true]);
  assert.equal(e.message, said);
  assert.deepEqual(e.headers, { "retry-after": "2" });
  assert.deepEqual(errorBody(e), {
    code: "resource_exhausted",
    message: said,
    retryable: true,
    limit_bytes_per_second: 2000n,
    retry_after_ms: 1500n,
  });
  assert.deepEqual(over("1").headers, { "retry-after": "1" });
  assert.deepEqual(over("0").headers, { "retry-after": "1" });
  assert.deepEqual(over("2000").headers, { "retry-after": "2" });
  assert.deepEqual(over("2001").headers, { "retry-after": "3" });
  // Without the detail: the plain 429, no fields.
  assert.deepEqual(fromGrpcError(grpc(status.RESOURCE_EXHAUSTED, said)).fields, {});
});

test("NOT_FOUND: the star's NotFoundDetail decides, else the addressed resource", () => {
  const missing = (resource: "RESOURCE_BUCKET" | "RESOURCE_STREAM", message: string) =>
    grpc(
      status.NOT_FOUND,
      message,
      detailsMetadata(status.NOT_FOUND, message, [
        { type: "NotFoundDetail", value: { resource, bucket: "b", key: "s" } },
      ]),
    );
  assert.equal(
    fromGrpcError(missing("RESOURCE_BUCKET", "not found"), { resource: "stream" }).code,
    "bucket_not_found",
  );
  assert.equal(
    fromGrpcError(missing("RESOURCE_STREAM", "not found"), { resource: "bucket" }).code,
    "stream_not_found",
  );
  // The message alone decides nothing.
  assert.equal(
    fromGrpcError(grpc(status.NOT_FOUND, "bucket b not found"), { resource: "stream" }).code,
    "stream_not_found",
  );
  assert.equal(
    fromGrpcError(grpc(status.NOT_FOUND, "no such thing"), { resource: "bucket" }).code,
    "bucket_not_found",
  );
  assert.equal(fromGrpcError(grpc(status.NOT_FOUND, "no such thing")).code, "stream_not_found");
});

test("FAILED_PRECONDITION with SeqNumMismatch is 412 with the exact expected_seq_num", () => {
  const md = detailsMetadata(status.FAILED_PRECONDITION, "mismatch", [
    { type: "SeqNumMismatch", value: { expected_seq_num: "18446744073709551615" } },
  ]);
  const e = fromGrpcError(grpc(status.FAILED_PRECONDITION, "mismatch", md));
  assert.deepEqual([e.status, e.code, e.retryable], [412, "seq_num_mismatch", false]);
  assert.equal(e.fields.expected_seq_num, 18446744073709551615n);
});

test("FAILED_PRECONDITION with FencingTokenMismatch is 412", () => {
  const md = detailsMetadata(status.FAILED_PRECONDITION, "fenced", [
    { type: "FencingTokenMismatch", value: { token_installed: true } },
  ]);
  const e = fromGrpcError(grpc(status.FAILED_PRECONDITION, "fenced", md));
  assert.deepEqual(
    [e.status, e.code, e.fields],
    [412, "fencing_token_mismatch", { token_installed: true }],
  );
});

test("producer refusals and a closed stream: their statuses, codes and exact fields, none retryable", () => {
  const cases: [Parameters<typeof detailsMetadata>[2][number], number, string, object][] = [
    [
      {
        type: "ProducerSeqGap",
        value: {
          expected_seq: "9007199254740993",
          received_seq: "9007199254740995",
          unknown_producer: false,
        },
      },
      409,
      "producer_seq_gap",
      { expected_seq: 9007199254740993n, received_seq: 9007199254740995n, unknown_producer: false },
    ],
    [
      { type: "ProducerSeqStale", value: { last_seq: "12" } },
      409,
      "producer_seq_stale",
      { last_seq: 12n },
    ],
    [
      { type: "ProducerFenced", value: { current_epoch: "18446744073709551615" } },
      403,
      "producer_fenced",
      { current_epoch: 18446744073709551615n },
    ],
    [
      { type: "StreamClosed", value: { tail: { seq_num: "3", timestamp_ms: "7" } } },
      409,
      "stream_closed",
      { tail: { seq_num: 3n, timestamp_ms: 7n } },
    ],
  ];
  for (const [detail, httpStatus, code, fields] of cases) {
    const md = detailsMetadata(status.FAILED_PRECONDITION, "said", [detail]);
    const e = fromGrpcError(grpc(status.FAILED_PRECONDITION, "said", md));
    assert.deepEqual(
      [e.status, e.code, e.retryable, e.fields, e.message],
      [httpStatus, code, false, fields, "said"],
    );
  }
});

test("a NotOwner that reaches translation (redirects exhausted) is 503", () => {
  const md = detailsMetadata(status.FAILED_PRECONDITION, "not the leader", [
    { type: "NotOwner", value: { leader_id: "b", leader_address: "10.0.0.2:5001" } },
  ]);
  const e = fromGrpcError(grpc(status.FAILED_PRECONDITION, "not the leader", md));
  assert.deepEqual([e.status, e.code, e.retryable], [503, "unavailable", true]);
  assert.doesNotMatch(e.message, /10\.0\.0\.2/);
});

test("OUT_OF_RANGE carries the tail from TailDetail, exactly", () => {
  const md = detailsMetadata(status.OUT_OF_RANGE, "beyond the tail", [
    { type: "TailDetail", value: { tail: { seq_num: "9007199254740993", timestamp_ms: "-1" } } },
  ]);
  const e = fromGrpcError(grpc(status.OUT_OF_RANGE, "beyond the tail", md));
  assert.deepEqual(e.fields, { tail: { seq_num: 9007199254740993n, timestamp_ms: -1n } });
  assert.deepEqual(fromGrpcError(grpc(status.OUT_OF_RANGE)).fields, {});
});

test("UNAVAILABLE for a damaged log is a 503 whose message is the star's, naming the object", () => {
  const said = "log object log/s1/00000000000000000004 is damaged (log object: crc mismatch)";
  const md = detailsMetadata(status.UNAVAILABLE, said, [
    {
      type: "LogDamaged",
      value: {
        star_id: "s1",
        object_key: "log/s1/00000000000000000004",
        stream_id: "",
        missing_seq_num: "0",
      },
    },
  ]);
  const e = fromGrpcError(grpc(status.UNAVAILABLE, said, md));
  assert.deepEqual([e.status, e.code, e.retryable], [503, "unavailable", true]);
  assert.equal(e.message, said);
  assert.deepEqual(e.headers, { "retry-after": "1" });
  // Any other UNAVAILABLE is the gateway's own words.
  assert.equal(
    fromGrpcError(grpc(status.UNAVAILABLE, said)).message,
    "the star is unavailable; retry",
  );
});

test("an append whose reply was lost says outcome unknown", () => {
  assert.equal(
    fromGrpcError(grpc(status.UNAVAILABLE), { outcomeUnknown: true }).fields.outcome,
    "unknown",
  );
  assert.equal(
    fromGrpcError(grpc(status.DEADLINE_EXCEEDED), { outcomeUnknown: true }).fields.outcome,
    "unknown",
  );
  assert.equal(fromGrpcError(grpc(status.UNAVAILABLE)).fields.outcome, undefined);
});

test("a status without details still reads as a sentence", () => {
  assert.equal(fromGrpcError({ code: status.INVALID_ARGUMENT }).message, "no detail given");
  assert.equal(
    fromGrpcError({ code: status.NOT_FOUND, metadata: new Metadata() }).code,
    "stream_not_found",
  );
});
