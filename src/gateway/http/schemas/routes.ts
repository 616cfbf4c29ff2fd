// Each route's schema: params, query, headers, body, and every response by status, errors
// included. Fastify validates requests with them (nothing coerced, defaulted or removed: see
// src/gateway/app.ts) and @fastify/swagger builds the OpenAPI document from them. Responses are
// documented here but written by stringifyJsonExact, never by a schema-driven serializer (see
// src/gateway/http/json.ts).
import { type TSchema, Type } from "typebox";
import type { schemaContext } from "./index.ts";
import {
  AppendHeaders,
  AppendQuery,
  BucketParams,
  CreateHeaders,
  Int64Query,
  ListQuery,
  ReadHeaders,
  ReadQuery,
  StreamParams,
  SubscribeHeaders,
  SubscribeQuery,
  TailQuery,
} from "./params.ts";

type SharedId = keyof typeof schemaContext;

const ref = (id: SharedId, description?: string): TSchema =>
  Type.Ref(id, description === undefined ? {} : { description });

const retryAfter = {
  "retry-after": { type: "string", description: "Seconds to wait before retrying." },
};

const serverTiming = {
  "server-timing": {
    type: "string",
    description:
      "On a page read (neither `wait` nor SSE): `plan;dur=MS, s3;dur=MS, star;dur=MS`, the milliseconds this read spent asking stars for ReadPlans, fetching chunks from object storage, and reading through the stars. `s3` above 0: settled history came straight from object storage; `star` above 0: some or all of it was read through a star.",
  },
};

const pageCaching = {
  "cache-control": {
    type: "string",
    description:
      "A settled page (it starts at a seq_num or timestamp_ms and stopped short of the tail, or the stream is closed): `public, max-age=N` (--cache-max-age-s, 60) when read without a credential, `private, max-age=N` with one. Any other read: `no-store`.",
  },
  etag: {
    type: "string",
    description:
      "Settled pages only: a weak validator over the page's records as they are rendered (format and integer mode included); the page's `tail` may differ under the same ETag.",
  },
  vary: { type: "string", description: "`accept, accept-encoding, nova-format, authorization`." },
};

/** What each error status means here, by the codes it carries (the table in docs/http-api.md). */
const ERROR_STATUSES = {
  400: "Bad input, named in `field`: bad_json (with `position`), bad_query, bad_header, bad_path, bad_base64 or invalid_argument.",
  401: "unauthenticated: the token is missing, invalid or expired.",
  403: "permission_denied: the token does not grant this.",
  404: "bucket_not_found or stream_not_found.",
  409: "already_exists, conflict (retryable) or failed_precondition.",
  412: "seq_num_mismatch (with `expected_seq_num`) or fencing_token_mismatch (with `token_installed`).",
  413: "payload_too_large: over the body limit or the 100 MiB batch limit (`field` names the record).",
  415: "unsupported_media_type: send Content-Type application/json.",
  408: "request_timeout (retryable, connection: close): the request body stalled (no byte for --body-idle-ms) or did not arrive within --body-timeout-ms.",
  416: "range_not_satisfiable: the start is beyond the tail (`tail`); add clamp=true to read from the tail.",
  422: "not_utf8: a record is not valid UTF-8 (`seq_num`, `field`); read it with format=base64.",
  429: "resource_exhausted (retryable, Retry-After): too many append bytes in flight, in the gateway or from this client (then with connection: close), or a star's limit; an append over the stream's throughput cap (throughput_max_bytes_per_second) carries `limit_bytes_per_second` and `retry_after_ms`, and nothing of it was appended.",
  500: "internal.",
  501: "unimplemented: this gateway or the star does not serve it (yet).",
  503: 'unavailable (retryable, Retry-After): no star answered. On an append, `"outcome": "unknown"` when it may have landed.',
  504: "deadline_exceeded (retryable): the star did not answer in time.",
} as const;

type ErrorStatus = keyof typeof ERROR_STATUSES;

const producerDuplicate = {
  "nova-producer-duplicate": {
    type: "string",
    description:
      "`true` when this was a producer's retry of a batch the stream already has: nothing was appended and the ack is the original's.",
  },
};

/** Append and Close: what an idempotent producer and a closed stream meet (docs/producers.md). */
const PRODUCER_ERRORS: Partial<Record<ErrorStatus, string>> = {
  403: "permission_denied; or producer_fenced (with `current_epoch`): a newer epoch of this producer id has started.",
  409: "conflict (retryable) or failed_precondition; producer_seq_gap (with `expected_seq`, `received_seq`, `unknown_producer`); producer_seq_stale (with `last_seq`): appended long ago, position forgotten; stream_closed (with `tail`). Nothing was appended.",
};

/** Every route that asks a star can meet these. */
const STAR_ERRORS = [400, 401, 403, 429, 500, 501, 503, 504] as const;

function errorResponses(
  statuses: readonly ErrorStatus[],
  notes: Partial<Record<ErrorStatus, string>> = {},
): Record<number, unknown> {
  const out: Record<number, unknown> = {};
  for (const status of [...new Set([...STAR_ERRORS, ...statuses])].sort((a, b) => a - b)) {
    out[status] = {
      $ref: "ErrorBody",
      description: notes[status] ?? ERROR_STATUSES[status],
      ...(status === 429 || status === 503 ? { headers: retryAfter } : {}),
    };
  }
  return out;
}

/** Service routes ask no star, but may still fail. */
const internalError = { 500: { $ref: "ErrorBody", description: ERROR_STATUSES[500] } };

const json = (schema: TSchema) => ({ content: { "application/json": { schema } } });

const noContent = (description: string) => Type.Null({ description });

/** Anonymous access is allowed where the stars allow it; a token is forwarded when given. */
const bearerOnly: Record<string, string[]>[] = [{}, { bearer: [] }];
const bearerOrQueryToken: Record<string, string[]>[] = [{}, { bearer: [] }, { accessToken: [] }];

const SSE_DESCRIPTION = [
  "With `Accept: text/event-stream`: a Server-Sent Events subscription (from curl, fetch or a browser EventSource).",
  "`retry: <ms>` once at the start;",
  "`event: batch` with `id: <seq_num>,<count>,<bytes>` (the batch's last seq_num, and the records and content bytes delivered so far in this session, across reconnects) and `data:` a ReadBatch on one line;",
  '`event: ping` with `data: {"timestamp_ms", "tail"}` right after catching up to the tail, then every 5 to 15 s while idle;',
  "`event: error` with `data:` an ErrorBody, then the stream ends;",
  '`event: done` with `data: {"next": Position}` when count, bytes, until_ms or wait are met, or `{"next": Position, "closed": true}` once every record of a closed stream is sent, then the stream ends (close the EventSource on `done`).',
  "Resume with the `Last-Event-ID` header or `?last_event_id=`. Never compressed; `cache-control: no-cache, no-transform`, `x-accel-buffering: no`.",
].join(" ");

const MULTIPLEX_DESCRIPTION = [
  "Several streams on one Server-Sent Events response, for browsers past HTTP/1.1's six connections per origin.",
  "Each stream is read as its own subscription would be, with its own start and bounds; the events are those of one stream's subscription, with these differences.",
  '`event: batch` data starts with `"stream": "<bucket>/<key>"`;',
  "every batch and ping has `id: 0:<next>,<count>,<bytes>;1:...`, one entry per stream in the order of the query: the seq_num it resumes at, and the records and content bytes it delivered so far;",
  '`event: ping` carries `{"timestamp_ms", "tails": {"<bucket>/<key>": Position, ...}}`;',
  '`event: done` carries `{"stream", "next"}` when that stream\'s bounds are met (and `"closed": true` when it is closed and read to its end); the response ends when every stream is done;',
  "`event: error` ends the response; when one stream failed it names it in `stream`, and `last_event_id` resumes every stream.",
  "An error known before the first byte is the response's (naming the stream in `stream`). Resume with `Last-Event-ID` or `?last_event_id=`: no gap and no duplicate on any stream; 204 when every stream's bounds are met.",
].join(" ");

const MULTIPLEX_EXAMPLE = [
  "retry: 1500",
  "",
  "event: batch",
  "id: 0:8,1,5;1:100,0,0",
  'data: {"stream":"orders/eu","records":[{"seq_num":7,"timestamp_ms":1764672000000,"headers":[],"body":"hello"}],"tail":{"seq_num":8,"timestamp_ms":1764672000000}}',
  "",
  "event: ping",
  "id: 0:8,1,5;1:100,0,0",
  'data: {"timestamp_ms":1764672000123,"tails":{"orders/eu":{"seq_num":8,"timestamp_ms":1764672000000},"orders/us":{"seq_num":100,"timestamp_ms":1764671999000}}}',
  "",
  "",
].join("\n");

const NDJSON_IN =
  "An append session: one AppendInput per line (`\\n`-separated JSON), each line one batch, appended in order.";
const NDJSON_OUT = [
  "For an append session: one line per request line, in order: an AppendAck, or an ErrorBody with `line` (the request line it answers).",
  "A seq_num_mismatch is that batch's line and the session goes on; any other error ends it.",
  'The last line is `{"end": {"reason": "done" | "error" | "draining" | "idle", "batches": <lines answered>, "error"?: ErrorBody}}` (`idle`: no line came for `--session-idle-ms` with nothing in flight).',
].join(" ");

const tags = {
  buckets: ["buckets"],
  streams: ["streams"],
  records: ["records"],
  tokens: ["tokens"],
  service: ["service"],
};

export const routeSchemas = {
  listBuckets: {
    operationId: "listBuckets",
    summary: "ListBuckets",
    description: "One page of buckets in name order; pass `next` as start_after for the next page.",
    tags: tags.buckets,
    security: bearerOnly,
    querystring: ListQuery,
    response: { 200: ref("ListBucketsResponse"), ...errorResponses([]) },
  },
  createBucket: {
    operationId: "createBucket",
    summary: "CreateBucket",
    description:
      "Creates a bucket. A retry with the same nova-request-token and body converges on the bucket it created.",
    tags: tags.buckets,
    security: bearerOnly,
    headers: CreateHeaders,
    querystring: Int64Query,
    body: json(ref("CreateBucketBody")),
    response: {
      201: ref("Bucket", "The bucket created."),
      ...errorResponses([408, 409, 413, 415], { 409: "already_exists: the name is taken." }),
    },
  },
  getBucket: {
    operationId: "getBucket",
    summary: "GetBucket",
    tags: tags.buckets,
    security: bearerOnly,
    params: BucketParams,
    querystring: Int64Query,
    response: { 200: ref("Bucket"), ...errorResponses([404], { 404: "bucket_not_found." }) },
  },
  reconfigureBucket: {
    operationId: "reconfigureBucket",
    summary: "ReconfigureBucket",
    description: "Sets the fields given (0 and false included); absent fields are unchanged.",
    tags: tags.buckets,
    security: bearerOnly,
    params: BucketParams,
    querystring: Int64Query,
    body: json(ref("BucketConfig")),
    response: {
      200: ref("Bucket", "The bucket as reconfigured."),
      ...errorResponses([404, 408, 409, 413, 415], { 404: "bucket_not_found." }),
    },
  },
  deleteBucket: {
    operationId: "deleteBucket",
    summary: "DeleteBucket",
    description:
      "Starts deleting the bucket and all its streams; their storage is reclaimed later.",
    tags: tags.buckets,
    security: bearerOnly,
    params: BucketParams,
    querystring: Int64Query,
    response: {
      202: noContent("Accepted: the bucket is being deleted."),
      ...errorResponses([404, 409], { 404: "bucket_not_found." }),
    },
  },
  listStreams: {
    operationId: "listStreams",
    summary: "ListStreams",
    description:
      "One page of the bucket's streams in key order (limit clamped to 1000); `next` is empty when complete.",
    tags: tags.streams,
    security: bearerOnly,
    params: BucketParams,
    querystring: ListQuery,
    response: {
      200: ref("ListStreamsResponse"),
      ...errorResponses([404], { 404: "bucket_not_found." }),
    },
  },
  createStream: {
    operationId: "createStream",
    summary: "CreateStream",
    description:
      "Creates a stream; absent configuration takes the bucket's defaults. A retry with the same nova-request-token and body converges.",
    tags: tags.streams,
    security: bearerOnly,
    params: BucketParams,
    headers: CreateHeaders,
    querystring: Int64Query,
    body: json(ref("CreateStreamBody")),
    response: {
      201: ref("Stream", "The stream created."),
      ...errorResponses([404, 408, 409, 413, 415], {
        404: "bucket_not_found.",
        409: "already_exists: the key is taken.",
      }),
    },
  },
  getStream: {
    operationId: "getStream",
    summary: "GetStream",
    tags: tags.streams,
    security: bearerOnly,
    params: StreamParams,
    querystring: Int64Query,
    response: { 200: ref("GetStreamResponse"), ...errorResponses([404]) },
  },
  reconfigureStream: {
    operationId: "reconfigureStream",
    summary: "ReconfigureStream",
    description: "Sets the fields given (0 and false included); absent fields are unchanged.",
    tags: tags.streams,
    security: bearerOnly,
    params: StreamParams,
    querystring: Int64Query,
    body: json(ref("StreamReconfiguration")),
    response: {
      200: ref("Stream", "The stream as reconfigured."),
      ...errorResponses([404, 408, 409, 413, 415]),
    },
  },
  deleteStream: {
    operationId: "deleteStream",
    summary: "DeleteStream",
    description: "Starts deleting the stream; its storage is reclaimed later.",
    tags: tags.streams,
    security: bearerOnly,
    params: StreamParams,
    querystring: Int64Query,
    response: {
      202: noContent("Accepted: the stream is being deleted."),
      ...errorResponses([404, 409]),
    },
  },
  append: {
    operationId: "append",
    summary: "Append (and the NDJSON append session)",
    description:
      "Appends one batch, whole or not at all. With Content-Type application/x-ndjson, an append session: one batch per line, acknowledged in order.",
    tags: tags.records,
    security: bearerOnly,
    params: StreamParams,
    headers: AppendHeaders,
    querystring: AppendQuery,
    body: {
      content: {
        "application/json": { schema: ref("AppendInput") },
        // Not validated here: the session reads and checks its lines one by one.
        "application/x-ndjson": { schema: { description: NDJSON_IN } },
      },
    },
    response: {
      200: {
        description: "The batch's acknowledgement.",
        headers: producerDuplicate,
        content: {
          "application/json": { schema: ref("AppendAck") },
          "application/x-ndjson": { schema: { type: "string", description: NDJSON_OUT } },
        },
      },
      ...errorResponses([404, 408, 409, 412, 413, 415], PRODUCER_ERRORS),
    },
  },
  close: {
    operationId: "close",
    summary: "Close a stream",
    description:
      "Closes the stream, after the body's records when there is a body (one batch, as Append, with the same producer headers). Then appends are refused with 409 stream_closed; reads, the tail and SSE say `closed`. Closing a closed stream with no body answers 200 again.",
    tags: tags.records,
    security: bearerOnly,
    params: StreamParams,
    headers: AppendHeaders,
    querystring: AppendQuery,
    body: json(ref("CloseInput")),
    response: {
      200: {
        description: "The final ack, with `closed: true` (start = end = tail when no records).",
        headers: producerDuplicate,
        content: { "application/json": { schema: ref("AppendAck") } },
      },
      ...errorResponses([404, 408, 409, 412, 413, 415], PRODUCER_ERRORS),
    },
  },
  read: {
    operationId: "read",
    summary: "Read (and Subscribe over SSE)",
    description:
      "One page of records (at most 1000 and 1 MiB, at least one record when one exists) from seq_num, timestamp_ms or tail_offset (none: the tail). At the tail: 200 with no records. With `wait=N` it long-polls. With `Accept: text/event-stream` it subscribes.",
    tags: tags.records,
    security: bearerOrQueryToken,
    params: StreamParams,
    headers: ReadHeaders,
    querystring: ReadQuery,
    response: {
      200: {
        description: "A page of records, or an SSE subscription.",
        headers: { ...serverTiming, ...pageCaching },
        content: {
          "application/json": { schema: ref("ReadBatch") },
          "text/event-stream": { schema: { type: "string", description: SSE_DESCRIPTION } },
        },
      },
      204: noContent(
        "SSE only: a resumed session whose bounds are already met (stops EventSource reconnecting).",
      ),
      304: {
        ...noContent(
          "A settled page whose ETag matched `If-None-Match`: the client's copy holds the same records. No body; `etag`, `cache-control` and `vary` as on the 200.",
        ),
        headers: pageCaching,
      },
      ...errorResponses([404, 416, 422]),
    },
  },
  subscribe: {
    operationId: "subscribe",
    summary: "Subscribe to several streams over one SSE response",
    description: MULTIPLEX_DESCRIPTION,
    tags: tags.records,
    security: bearerOrQueryToken,
    headers: SubscribeHeaders,
    querystring: SubscribeQuery,
    response: {
      200: {
        description: "A multiplexed Server-Sent Events subscription.",
        content: {
          "text/event-stream": {
            schema: { type: "string", description: MULTIPLEX_DESCRIPTION },
            example: MULTIPLEX_EXAMPLE,
          },
        },
      },
      204: noContent("A resumed subscription whose every stream's bounds are already met."),
      ...errorResponses([404, 416, 422]),
    },
  },
  checkTail: {
    operationId: "checkTail",
    summary: "CheckTail",
    tags: tags.records,
    security: bearerOrQueryToken,
    params: StreamParams,
    querystring: TailQuery,
    response: { 200: ref("CheckTailResponse"), ...errorResponses([404]) },
  },
  trim: {
    operationId: "trim",
    summary: "Trim",
    description:
      "Trims every record before seq_num, or stamped before timestamp_ms. Monotonic: an earlier point is a no-op.",
    tags: tags.records,
    security: bearerOnly,
    params: StreamParams,
    querystring: Int64Query,
    body: json(ref("TrimBody")),
    response: {
      204: noContent("Trimmed."),
      ...errorResponses([404, 408, 409, 413, 415]),
    },
  },
  fence: {
    operationId: "fence",
    summary: "Fence",
    description:
      "Installs, rotates or (with an empty token) clears the stream's fencing token; answers the admission boundary.",
    tags: tags.records,
    security: bearerOnly,
    params: StreamParams,
    querystring: Int64Query,
    body: json(ref("FenceBody")),
    response: { 200: ref("FenceResponse"), ...errorResponses([404, 408, 409, 413, 415]) },
  },
  exchangeToken: {
    operationId: "exchangeToken",
    summary: "ExchangeToken",
    description: "Exchanges an api key for a short-lived bearer token.",
    tags: tags.tokens,
    security: [],
    querystring: Int64Query,
    body: json(ref("TokenRequest")),
    response: {
      200: ref("TokenResponse"),
      ...errorResponses([408, 413, 415], { 401: "unauthenticated: unknown key or wrong secret." }),
    },
  },
  livez: {
    operationId: "livez",
    summary: "Liveness",
    tags: tags.service,
    response: {
      200: Type.Object({ status: Type.Literal("ok") }, { description: "The process runs." }),
      ...internalError,
    },
  },
  readyz: {
    operationId: "readyz",
    summary: "Readiness",
    description: "200 while a star answers and the gateway is not draining.",
    tags: tags.service,
    response: {
      200: Type.Object({ status: Type.String() }, { description: "Ready." }),
      503: Type.Object({ status: Type.String() }, { description: "Draining, or no star answers." }),
      ...internalError,
    },
  },
  metrics: {
    operationId: "metrics",
    summary: "Prometheus metrics",
    tags: tags.service,
    response: {
      200: {
        description:
          "Requests by route and status, latency, upstream calls by verb and code, redirects.",
        content: { "text/plain": { schema: { type: "string" } } },
      },
      ...internalError,
    },
  },
  openapi: {
    operationId: "openapi",
    summary: "This OpenAPI document",
    description: "Also browsable at /docs.",
    tags: tags.service,
    response: {
      200: {
        description: "OpenAPI 3.1.",
        content: { "application/json": { schema: { type: "object" } } },
      },
      ...internalError,
    },
  },
} as const;
