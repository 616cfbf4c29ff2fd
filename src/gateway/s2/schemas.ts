// The S2 face's route schemas, for the OpenAPI document (tag "s2") and for request checks that
// only refuse (translation does the exact checks, in S2's error codes). Responses are written by
// stringifyJsonExact, as everywhere in the gateway.
import { type TSchema, Type } from "typebox";

const tags = ["s2"];
const security: Record<string, string[]>[] = [{}, { bearer: [] }];

const u64 = (description: string) =>
  Type.Union([Type.String({ pattern: "^[0-9]{1,20}$" }), Type.Integer({ minimum: 0 })], {
    description: `${description} (uint64, exact)`,
  });
const digits = (description: string) => Type.String({ pattern: "^[0-9]{1,20}$", description });

const ErrorInfo = Type.Object(
  {
    code: Type.String({
      description:
        "S2's error code: invalid, rate_limited, transaction_conflict, server_draining, ...",
    }),
    message: Type.String(),
  },
  { additionalProperties: false },
);
const AppendConditionFailed = Type.Union([
  Type.Object({ seq_num_mismatch: u64("The seq_num the batch would have had to match") }),
  Type.Object({
    fencing_token_mismatch: Type.String({ description: "The installed fencing token" }),
  }),
]);
const Position = Type.Object(
  { seq_num: u64("Sequence number"), timestamp: u64("Milliseconds since the epoch") },
  { additionalProperties: false },
);
const Tail = Type.Object({ tail: Position }, { additionalProperties: false });
// An array of two, not a tuple: OpenAPI 3.1's JSON Schema has no array-form `items`.
const Header = Type.Array(Type.String(), {
  minItems: 2,
  maxItems: 2,
  description: "[name, value]",
});
const SequencedRecord = Type.Object(
  {
    seq_num: u64("Sequence number"),
    timestamp: u64("Milliseconds since the epoch"),
    headers: Type.Optional(Type.Array(Header)),
    body: Type.Optional(Type.String()),
  },
  { additionalProperties: false },
);
const ReadBatch = Type.Object(
  { records: Type.Array(SequencedRecord), tail: Type.Optional(Position) },
  { additionalProperties: false },
);
const AppendAck = Type.Object(
  { start: Position, end: Position, tail: Position },
  { additionalProperties: false },
);
const AppendInput = Type.Object(
  {
    records: Type.Array(
      Type.Object({
        timestamp: Type.Optional(Type.Union([u64("Client timestamp"), Type.Null()])),
        headers: Type.Optional(Type.Array(Header)),
        body: Type.Optional(Type.String()),
      }),
      { description: "1 to 1000 records, at most 1 MiB metered (8 + 2 per header + bytes each)" },
    ),
    match_seq_num: Type.Optional(Type.Union([u64("Expected first seq_num"), Type.Null()])),
    fencing_token: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  },
  {
    description:
      "An S2 AppendInput. A single fence or trim command record is nova's Fence or Trim.",
  },
);
const StreamConfig = Type.Object(
  {
    storage_class: Type.Optional(Type.Enum(["standard", "express"])),
    retention_policy: Type.Optional(
      Type.Union([
        Type.Object({ age: u64("Seconds") }),
        Type.Object({ infinite: Type.Object({}) }),
      ]),
    ),
    timestamping: Type.Optional(
      Type.Object({
        mode: Type.Optional(Type.Enum(["client-prefer", "client-require", "arrival"])),
        uncapped: Type.Optional(Type.Boolean()),
      }),
    ),
  },
  { description: "S2's StreamConfig as nova has it (delete_on_empty is refused unless 0)" },
);
const BasinConfig = Type.Object({
  default_stream_config: Type.Optional(StreamConfig),
  create_stream_on_append: Type.Optional(Type.Boolean()),
  create_stream_on_read: Type.Optional(Type.Boolean()),
});
const BasinInfo = Type.Object({
  name: Type.String(),
  created_at: Type.String({ format: "date-time" }),
  deleted_at: Type.Union([Type.String({ format: "date-time" }), Type.Null()]),
  location: Type.Union([Type.String(), Type.Null()]),
  state: Type.Enum(["active", "deleting"]),
});
const StreamInfo = Type.Object({
  name: Type.String(),
  created_at: Type.String({ format: "date-time" }),
  deleted_at: Type.Union([Type.String({ format: "date-time" }), Type.Null()]),
  cipher: Type.Null(),
});

const basinHeader = Type.Object({
  "s2-basin": Type.Optional(
    Type.String({ description: "The basin; without it, the first label of the Host" }),
  ),
});
const recordHeaders = Type.Object({
  "s2-basin": Type.Optional(
    Type.String({ description: "The basin; without it, the first label of the Host" }),
  ),
  "s2-format": Type.Optional(
    Type.String({ description: "raw (UTF-8 text, the default) or base64, for JSON bodies" }),
  ),
});
const basinParams = Type.Object({
  basin: Type.String({ description: "Basin name: 8 to 48 of a-z, 0-9, -" }),
});
const streamParams = Type.Object({
  stream: Type.String({ minLength: 1, description: "Stream name (percent-encoded)" }),
});
const listQuery = Type.Object({
  prefix: Type.Optional(Type.String()),
  start_after: Type.Optional(Type.String()),
  limit: Type.Optional(digits("At most 1000 (the default); larger values are clamped to 1000")),
});
const readQuery = Type.Object({
  seq_num: Type.Optional(digits("Start at this seq_num")),
  timestamp: Type.Optional(digits("Start at the first record at or after this time")),
  tail_offset: Type.Optional(digits("Start this many records before the tail (none: 0)")),
  clamp: Type.Optional(
    Type.Enum(["true", "false"], {
      description:
        "A start past the tail starts at the tail; a unary read there without wait is still 416",
    }),
  ),
  count: Type.Optional(digits("At most this many records")),
  bytes: Type.Optional(digits("At most this many metered bytes")),
  until: Type.Optional(digits("Only records before this time")),
  wait: Type.Optional(digits("Seconds to wait for records (0 to 60)")),
});

const errors = (statuses: number[]): Record<number, TSchema> => {
  const out: Record<number, TSchema> = {};
  for (const s of [400, 401, 403, 404, 408, 409, 422, 429, 500, 501, 503, 504, ...statuses]) {
    out[s] = Type.Object(ErrorInfo.properties, {
      description: "An S2 error",
      additionalProperties: false,
    });
  }
  return out;
};
const json = (schema: TSchema, description: string) => ({
  description,
  content: { "application/json": { schema } },
});
const jsonOrProto = (schema: TSchema, proto: string, description: string) => ({
  description,
  content: {
    "application/json": { schema },
    "application/protobuf": {
      schema: { description: `S2's ${proto} message (proto/s2/v1/s2.proto)` },
    },
  },
});

const SSE = [
  "With Accept: text/event-stream, an S2 read session:",
  "`event: batch` with id `<seq_num>,<count>,<metered bytes>` and a ReadBatch,",
  '`event: ping` with `{"timestamp", "tail"}` on catching up and then while idle,',
  "`event: error` with an S2 error, and `data: [DONE]` when count, bytes, until or wait are met.",
  "Without wait, a session bounded by count, bytes or until ends once caught up.",
  "Resume with Last-Event-ID. With content-type s2s/proto: an s2s read session (docs/s2-compat.md).",
].join(" ");

export const s2Schemas = {
  listBasins: {
    operationId: "s2ListBasins",
    summary: "S2 ListBasins",
    tags,
    security,
    querystring: listQuery,
    response: {
      200: Type.Object({ basins: Type.Array(BasinInfo), has_more: Type.Boolean() }),
      ...errors([]),
    },
  },
  createBasin: {
    operationId: "s2CreateBasin",
    summary: "S2 CreateBasin",
    description: "A nova bucket. `s2-request-token` is the creation token.",
    tags,
    security,
    body: Type.Object({
      basin: Type.String(),
      config: Type.Optional(Type.Union([BasinConfig, Type.Null()])),
    }),
    response: { 201: BasinInfo, ...errors([]) },
  },
  ensureBasin: {
    operationId: "s2EnsureBasin",
    summary: "S2 EnsureBasin",
    description: "Creates the basin (201), or applies the config given to the existing one (200).",
    tags,
    security,
    params: basinParams,
    response: { 200: BasinInfo, 201: BasinInfo, ...errors([]) },
  },
  getBasinConfig: {
    operationId: "s2GetBasinConfig",
    summary: "S2 GetBasinConfig",
    tags,
    security,
    params: basinParams,
    response: { 200: BasinConfig, ...errors([]) },
  },
  reconfigureBasin: {
    operationId: "s2ReconfigureBasin",
    summary: "S2 ReconfigureBasin",
    tags,
    security,
    params: basinParams,
    response: { 200: BasinConfig, ...errors([]) },
  },
  deleteBasin: {
    operationId: "s2DeleteBasin",
    summary: "S2 DeleteBasin",
    tags,
    security,
    params: basinParams,
    response: { 202: Type.Null({ description: "Deleted" }), ...errors([]) },
  },
  listStreams: {
    operationId: "s2ListStreams",
    summary: "S2 ListStreams",
    tags,
    security,
    headers: basinHeader,
    querystring: listQuery,
    response: {
      200: Type.Object({ streams: Type.Array(StreamInfo), has_more: Type.Boolean() }),
      ...errors([]),
    },
  },
  createStream: {
    operationId: "s2CreateStream",
    summary: "S2 CreateStream",
    tags,
    security,
    headers: basinHeader,
    body: Type.Object({
      stream: Type.String(),
      config: Type.Optional(Type.Union([StreamConfig, Type.Null()])),
    }),
    response: { 201: StreamInfo, ...errors([]) },
  },
  ensureStream: {
    operationId: "s2EnsureStream",
    summary: "S2 EnsureStream",
    description:
      "Creates the stream (201), or applies the config given to the existing one (200). The body is the StreamConfig itself, or empty.",
    tags,
    security,
    headers: basinHeader,
    params: streamParams,
    response: { 200: StreamInfo, 201: StreamInfo, ...errors([]) },
  },
  getStreamConfig: {
    operationId: "s2GetStreamConfig",
    summary: "S2 GetStreamConfig",
    tags,
    security,
    headers: basinHeader,
    params: streamParams,
    response: { 200: StreamConfig, ...errors([]) },
  },
  reconfigureStream: {
    operationId: "s2ReconfigureStream",
    summary: "S2 ReconfigureStream",
    tags,
    security,
    headers: basinHeader,
    params: streamParams,
    response: { 200: StreamConfig, ...errors([]) },
  },
  deleteStream: {
    operationId: "s2DeleteStream",
    summary: "S2 DeleteStream",
    tags,
    security,
    headers: basinHeader,
    params: streamParams,
    response: { 202: Type.Null({ description: "Deleted" }), ...errors([]) },
  },
  checkTail: {
    operationId: "s2CheckTail",
    summary: "S2 CheckTail",
    tags,
    security,
    headers: basinHeader,
    params: streamParams,
    response: { 200: Tail, ...errors([]) },
  },
  append: {
    operationId: "s2Append",
    summary: "S2 Append",
    description:
      "One batch, JSON or application/protobuf (S2's AppendInput); the ack as Accept asks. A single fence or trim command record is nova's Fence or Trim, acked with start = end. With content-type s2s/proto over HTTP/2: an s2s append session (docs/s2-compat.md); over HTTP/1.1, 501.",
    tags,
    security,
    headers: recordHeaders,
    params: streamParams,
    body: {
      content: {
        "application/json": { schema: AppendInput },
        "application/protobuf": { schema: { description: "S2's AppendInput message" } },
        "s2s/proto": {
          schema: {
            description:
              "An s2s append session (HTTP/2): framed AppendInput messages (docs/s2-compat.md)",
          },
        },
      },
    },
    response: {
      200: {
        description: "The batch's acknowledgement",
        content: {
          ...jsonOrProto(AppendAck, "AppendAck", "").content,
          "s2s/proto": { schema: { description: "An s2s session's framed AppendAck messages" } },
        },
      },
      412: json(AppendConditionFailed, "match_seq_num or fencing_token did not match"),
      ...errors([]),
    },
  },
  read: {
    operationId: "s2Read",
    summary: "S2 Read (and the SSE read session)",
    description: SSE,
    tags,
    security,
    headers: recordHeaders,
    params: streamParams,
    querystring: readQuery,
    response: {
      200: {
        description: "A ReadBatch, or the session's events",
        content: {
          "application/json": { schema: ReadBatch },
          "application/protobuf": { schema: { description: "S2's ReadBatch message" } },
          "text/event-stream": { schema: { type: "string", description: SSE } },
          "s2s/proto": {
            schema: {
              description: "An s2s read session's framed ReadBatch messages (docs/s2-compat.md)",
            },
          },
        },
      },
      416: json(
        Tail,
        "A unary read without wait that starts at or past the tail (given, or clamped there): nothing to read yet; read with wait to wait for records",
      ),
      ...errors([]),
    },
  },
  unsupported: {
    summary: "S2 access tokens, locations and metrics",
    description: "Not served by nova: 501 with the reason (docs/s2-compat.md).",
    tags,
    hide: true,
    response: errors([]),
  },
};
