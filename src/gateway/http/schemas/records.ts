// Records in JSON: positions, headers, AppendInput / AppendAck, ReadBatch.
import { Type } from "typebox";
import { MAX_BATCH_RECORDS, MAX_HEADERS_PER_RECORD } from "../../../contract/wire-limits.ts";
import { Int64, Uint64 } from "./integers.ts";

const T = 1709481600000;

export const Position = Type.Object(
  {
    seq_num: Uint64(
      "The sequence number; at an exclusive boundary (end, tail), one past the last record",
    ),
    timestamp_ms: Int64("The record's time in milliseconds; 0 when none is known"),
  },
  {
    $id: "Position",
    additionalProperties: false,
    description: "One point on a stream.",
    examples: [{ seq_num: 100, timestamp_ms: T }],
  },
);

const FORMAT_NOTE =
  "UTF-8 text with format=raw (the default), standard or URL-safe base64 with format=base64";

export const Header = Type.Object(
  {
    name: Type.String({ minLength: 1, description: `Header name, not empty: ${FORMAT_NOTE}` }),
    value: Type.String({ description: `Header value: ${FORMAT_NOTE}` }),
  },
  {
    $id: "Header",
    additionalProperties: false,
    description: "A record header. Names and values are opaque bytes; duplicates keep their order.",
    examples: [{ name: "content-type", value: "application/json" }],
  },
);

export const ReadHeader = Type.Object(
  {
    name: Type.String({
      description: `Header name: ${FORMAT_NOTE}. Empty only in a command record, whose one header it is (["", "fence"] or ["", "trim"], written through S2's API or gRPC)`,
    }),
    value: Type.String({ description: `Header value: ${FORMAT_NOTE}` }),
  },
  {
    $id: "ReadHeader",
    additionalProperties: false,
    description:
      "A stored record's header. Names and values are opaque bytes; duplicates keep their order.",
    examples: [{ name: "content-type", value: "application/json" }],
  },
);

export const HeaderPair = Type.Array(Type.String(), {
  $id: "HeaderPair",
  minItems: 2,
  maxItems: 2,
  description: "A header as a [name, value] pair; accepted on input only.",
  examples: [["content-type", "application/json"]],
});

export const AppendRecord = Type.Object(
  {
    body: Type.Optional(
      Type.String({ description: `The body (empty when absent): ${FORMAT_NOTE}` }),
    ),
    headers: Type.Optional(
      Type.Array(Type.Union([Type.Ref("Header"), Type.Ref("HeaderPair")]), {
        maxItems: MAX_HEADERS_PER_RECORD,
        description: `At most ${MAX_HEADERS_PER_RECORD}, in order, duplicates kept.`,
      }),
    ),
    timestamp_ms: Type.Optional(
      Int64("The client's stamp in milliseconds, honored per the stream's timestamping mode"),
    ),
  },
  {
    $id: "AppendRecord",
    additionalProperties: false,
    description:
      "One record to append. Its content bytes (body plus every header name and value) are at most 1 MiB.",
    examples: [
      { body: "hello", headers: [{ name: "event-type", value: "greeting" }], timestamp_ms: T },
    ],
  },
);

export const AppendInput = Type.Object(
  {
    records: Type.Array(Type.Ref("AppendRecord"), {
      minItems: 1,
      maxItems: MAX_BATCH_RECORDS,
      description: `One batch, appended whole: 1 to ${MAX_BATCH_RECORDS} records.`,
    }),
    match_seq_num: Type.Optional(
      Uint64(
        "The batch lands only if its first record would get this seq_num (412 seq_num_mismatch otherwise)",
      ),
    ),
    fencing_token: Type.Optional(
      Type.String({
        maxLength: 48,
        description:
          "Required on a fenced stream: the installed token (plain text, at most 48 UTF-8 bytes).",
      }),
    ),
  },
  {
    $id: "AppendInput",
    additionalProperties: false,
    description:
      "An append: one batch of records, with optional conditions. One per line in an NDJSON session.",
    examples: [
      {
        records: [{ body: "...", headers: [{ name: "...", value: "..." }], timestamp_ms: T }],
        match_seq_num: 42,
        fencing_token: "...",
      },
    ],
  },
);

export const CloseInput = Type.Object(
  {
    records: Type.Optional(
      Type.Array(Type.Ref("AppendRecord"), {
        minItems: 1,
        maxItems: MAX_BATCH_RECORDS,
        description: `A final batch, appended whole before the stream closes: 1 to ${MAX_BATCH_RECORDS} records.`,
      }),
    ),
    match_seq_num: Type.Optional(
      Uint64("With records: the final batch lands only if its first record would get this seq_num"),
    ),
    fencing_token: Type.Optional(
      Type.String({
        maxLength: 48,
        description: "Required on a fenced stream: the installed token.",
      }),
    ),
  },
  {
    $id: "CloseInput",
    additionalProperties: false,
    description:
      "A close: optionally a final batch, with the same conditions as an append (docs/producers.md).",
    examples: [{ records: [{ body: "the last one" }] }, { fencing_token: "writer-1" }],
  },
);

export const AppendAck = Type.Object(
  {
    start: Type.Ref("Position", { description: "The first record appended." }),
    end: Type.Ref("Position", { description: "One past the last record appended." }),
    tail: Type.Ref("Position", { description: "The committed tail, at least end." }),
    duplicate: Type.Optional(
      Type.Literal(true, {
        description:
          "Only when true: a producer's retry of a batch the stream has; nothing was appended, start and end are the original's (docs/producers.md).",
      }),
    ),
    closed: Type.Optional(
      Type.Literal(true, { description: "Only when true: the stream is closed." }),
    ),
  },
  {
    $id: "AppendAck",
    additionalProperties: false,
    description: "The acknowledgement of one appended batch.",
    examples: [
      {
        start: { seq_num: 100, timestamp_ms: T },
        end: { seq_num: 103, timestamp_ms: T },
        tail: { seq_num: 103, timestamp_ms: T },
      },
    ],
  },
);

export const ReadRecord = Type.Object(
  {
    seq_num: Uint64("The record's sequence number"),
    timestamp_ms: Int64("The record's time in milliseconds"),
    headers: Type.Array(Type.Ref("ReadHeader")),
    body: Type.String({
      description: `The body: ${FORMAT_NOTE.replace(", standard or URL-safe", ", standard")}`,
    }),
  },
  {
    $id: "ReadRecord",
    additionalProperties: false,
    description:
      "A stored record. With format=raw, a record that is not UTF-8 fails the read (422 not_utf8).",
    examples: [
      {
        seq_num: 100,
        timestamp_ms: T,
        headers: [{ name: "event-type", value: "order.created" }],
        body: '{"order_id":123}',
      },
    ],
  },
);

export const ReadBatch = Type.Object(
  {
    records: Type.Array(Type.Ref("ReadRecord"), { description: "Empty at the tail." }),
    tail: Type.Ref("Position", {
      description: "Where the stream ends: the next seq_num to be assigned.",
    }),
    closed: Type.Optional(
      Type.Literal(true, {
        description:
          "Only when true: the stream is closed and this page ends at its tail; nothing will follow.",
      }),
    ),
  },
  {
    $id: "ReadBatch",
    additionalProperties: false,
    description: "A page of records (and, over SSE, one `batch` event's data).",
    examples: [
      {
        records: [{ seq_num: 100, timestamp_ms: T, headers: [], body: "hello" }],
        tail: { seq_num: 150, timestamp_ms: T + 400000 },
      },
    ],
  },
);

export const CheckTailResponse = Type.Object(
  {
    tail: Type.Ref("Position", {
      description: "The next seq_num (0 on a new stream) and the last record's time.",
    }),
    closed: Type.Optional(
      Type.Literal(true, { description: "Only when true: the stream is closed." }),
    ),
  },
  {
    $id: "CheckTailResponse",
    additionalProperties: false,
    description: "Where the stream ends, strongly consistently.",
    examples: [{ tail: { seq_num: 150, timestamp_ms: T } }],
  },
);
