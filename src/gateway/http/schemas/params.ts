// Path parameters, query strings and request headers. Inlined into routes (no $id) so OpenAPI
// lists each as a parameter. Query values are strings with patterns, never integers: Ajv would
// coerce "18446744073709551615" to a rounded double; translation reads the digits exactly.
import { Type } from "typebox";
import { BUCKET_NAME, MAX_CREATION_TOKEN_HEADER_BYTES } from "../../../contract/wire-limits.ts";

const uint64Digits = (description: string) =>
  Type.String({ pattern: "^[0-9]{1,20}$", description });
const int64Digits = (description: string) =>
  Type.String({ pattern: "^-?[0-9]{1,19}$", description });

const bucket = Type.String({
  pattern: BUCKET_NAME.source,
  description: "The bucket name: 3 to 48 of a-z, 0-9 and -, not starting or ending with -.",
  examples: ["shop"],
});

export const BucketParams = Type.Object({ bucket }, { additionalProperties: false });

export const StreamParams = Type.Object(
  {
    bucket,
    // Its length is checked in UTF-8 bytes by translation; JSON Schema counts code points.
    key: Type.String({
      minLength: 1,
      description:
        "The stream key: 1 to 512 bytes of UTF-8, percent-encoded in the path (a/b is a%2Fb).",
      examples: ["orders/eu"],
    }),
  },
  { additionalProperties: false },
);

const int64 = Type.Optional(
  Type.Enum(["number", "string"], {
    description:
      "How seq_nums and timestamps are written: JSON numbers (exact digits, the default) or decimal strings.",
  }),
);

const format = Type.Optional(
  Type.Enum(["raw", "base64"], {
    description:
      "Record format for header names, values and bodies (wins over the nova-format header).",
  }),
);

/** Routes whose responses carry integers and no records. */
export const Int64Query = Type.Object({ int64 }, { additionalProperties: false });

const accessToken = Type.Optional(
  Type.String({
    description:
      "A bearer token, for clients that cannot set headers (EventSource); reads only. Prefer Authorization.",
  }),
);

/** CheckTail: a read, so it also takes ?access_token=. */
export const TailQuery = Type.Object(
  { int64, access_token: accessToken },
  { additionalProperties: false },
);

/** Append (JSON and NDJSON). */
export const AppendQuery = Type.Object({ format, int64 }, { additionalProperties: false });

export const ReadQuery = Type.Object(
  {
    seq_num: Type.Optional(uint64Digits("Start at this seq_num")),
    timestamp_ms: Type.Optional(
      int64Digits("Start at the first record stamped at or after this time"),
    ),
    tail_offset: Type.Optional(uint64Digits("Start this many records before the tail")),
    count: Type.Optional(
      uint64Digits("At most this many records (one page holds at most 1000); 0 is no limit"),
    ),
    bytes: Type.Optional(
      uint64Digits("At most this many content bytes (one page holds at most 1 MiB); 0 is no limit"),
    ),
    until_ms: Type.Optional(int64Digits("Only records stamped before this time (exclusive)")),
    clamp: Type.Optional(
      Type.Enum(["true", "false"], {
        description: "A start beyond the tail reads from the tail instead of 416.",
      }),
    ),
    wait: Type.Optional(
      Type.String({
        pattern: "^[0-9]{1,2}$",
        description:
          "Long-poll up to this many seconds (at most 60) for records; the gateway waits at most " +
          "its --max-wait-s (25 by default, below common load-balancer idle timeouts) and then " +
          "answers 200 with no records.",
      }),
    ),
    format,
    int64,
    access_token: accessToken,
    last_event_id: Type.Optional(
      Type.String({ description: "SSE resume id (seq_num,count,bytes), as Last-Event-ID." }),
    ),
  },
  {
    additionalProperties: false,
    description:
      "Give at most one of seq_num, timestamp_ms and tail_offset; none reads from the tail.",
  },
);

const listFields = {
  prefix: Type.Optional(Type.String({ description: "Only names starting with this." })),
  start_after: Type.Optional(
    Type.String({ description: "The cursor a previous page returned as next." }),
  ),
  limit: Type.Optional(
    uint64Digits("At most this many per page; larger values are clamped to 1000"),
  ),
  int64,
};

/** ListBuckets and ListStreams. */
export const ListQuery = Type.Object(listFields, { additionalProperties: false });

const novaFormat = Type.Optional(
  Type.Enum(["raw", "base64"], {
    description: "Record format; the format query parameter wins.",
  }),
);

/** Headers are open-ended: only the ones the gateway reads are described. */
export const FormatHeaders = Type.Object({ "nova-format": novaFormat });

/** Append and Close: the record format, and an idempotent producer's stamp (docs/producers.md). */
export const AppendHeaders = Type.Object({
  "nova-format": novaFormat,
  "nova-producer-id": Type.Optional(
    Type.String({
      minLength: 1,
      // The header's bytes, which Node reads one character each: 128 characters of UTF-8 take
      // up to 512. The 128 characters are counted once the bytes are read as UTF-8.
      maxLength: 512,
      description:
        "An idempotent producer's id (1 to 128 characters of UTF-8), sent with nova-producer-epoch and nova-producer-seq: a retry of a batch the stream has is answered with the original ack, never appended twice.",
    }),
  ),
  "nova-producer-epoch": Type.Optional(
    uint64Digits(
      "The producer's epoch (uint64): a higher one starts at seq 0 and fences the older (403 producer_fenced).",
    ),
  ),
  "nova-producer-seq": Type.Optional(
    uint64Digits(
      "This batch's seq (uint64): the last acked + 1 (else 409 producer_seq_gap). In an NDJSON session, line n gets this + n.",
    ),
  ),
});

/** Read, and Subscribe (the same route with Accept: text/event-stream). */
export const ReadHeaders = Type.Object({
  "nova-format": novaFormat,
  accept: Type.Optional(
    Type.String({
      description:
        "text/event-stream subscribes (Server-Sent Events); anything else reads one JSON page.",
    }),
  ),
  "last-event-id": Type.Optional(
    Type.String({
      description:
        "SSE resume id seq_num,count,bytes (EventSource sends it on reconnect); as ?last_event_id=.",
    }),
  ),
  "if-none-match": Type.Optional(
    Type.String({
      description:
        "The ETag of a page the client holds: a settled page with the same records answers 304 (weak comparison; `*` matches any settled page).",
    }),
  ),
});

/** A multiplexed subscription: several streams on one SSE response. */
export const SubscribeQuery = Type.Object(
  {
    stream: Type.Union([Type.String(), Type.Array(Type.String(), { minItems: 1 })], {
      description:
        "A stream to follow, repeated for each: `<bucket>/<key>`, then any of `;seq_num=`, `;timestamp_ms=`, `;tail_offset=`, `;count=`, `;bytes=`, `;until_ms=`, `;clamp=` as for one stream's read (none: from the tail). The key is percent-encoded as in a path, inside the query's own encoding (`a;b` is `a%253Bb`). At most --sse-max-streams (64) streams, each named once.",
      examples: [["orders/eu", "orders/us;seq_num=100;count=500"]],
    }),
    wait: Type.Optional(
      Type.String({
        pattern: "^[0-9]{1,2}$",
        description:
          "End the subscription (a done event per stream) once every stream has caught up and none got a record for this many seconds (at most 60).",
      }),
    ),
    format,
    int64,
    access_token: accessToken,
    last_event_id: Type.Optional(
      Type.String({
        description:
          "Multiplexed resume id (`0:next,count,bytes;1:...`, one entry per stream), as Last-Event-ID.",
      }),
    ),
  },
  { additionalProperties: false },
);

export const SubscribeHeaders = Type.Object({
  "nova-format": novaFormat,
  "last-event-id": Type.Optional(
    Type.String({
      description: "Multiplexed resume id (EventSource sends it on reconnect); as ?last_event_id=.",
    }),
  ),
});

export const CreateHeaders = Type.Object({
  "nova-request-token": Type.Optional(
    Type.String({
      // Header bytes, which Node reads one character each.
      maxLength: MAX_CREATION_TOKEN_HEADER_BYTES,
      description:
        "The creation token (at most 256 bytes): a retry (the same token and the same body) converges on the existing resource; the same token with another body is 409 already_exists.",
    }),
  ),
});
