// Path parameters, query strings and request headers. Inlined into routes (no $id) so OpenAPI
// lists each as a parameter. Query values are strings with patterns, never integers: Ajv would
// coerce "18446744073709551615" to a rounded double; translation reads the digits exactly.
import { Type } from "typebox";

const uint64Digits = (description: string) =>
  Type.String({ pattern: "^[0-9]{1,20}$", description });
const int64Digits = (description: string) =>
  Type.String({ pattern: "^-?[0-9]{1,19}$", description });

export const BucketParams = Type.Object(
  { bucket: Type.String({ description: "The bucket name: 3 to 48 of a-z, 0-9 and -." }) },
  { additionalProperties: false },
);

export const StreamParams = Type.Object(
  {
    bucket: Type.String({ description: "The bucket name: 3 to 48 of a-z, 0-9 and -." }),
    key: Type.String({
      description: "The stream key, percent-encoded: 1 to 512 bytes of UTF-8 (a/b is a%2Fb).",
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
        description: "Long-poll up to this many seconds (at most 60) for records.",
      }),
    ),
    format,
    int64,
    access_token: Type.Optional(
      Type.String({
        description: "A bearer token, for clients that cannot set headers (GET only).",
      }),
    ),
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

/** Headers are open-ended: only the ones the gateway reads are described. */
export const FormatHeaders = Type.Object({
  "nova-format": Type.Optional(
    Type.Enum(["raw", "base64"], {
      description: "Record format; the format query parameter wins.",
    }),
  ),
});

export const CreateHeaders = Type.Object({
  "nova-request-token": Type.Optional(
    Type.String({
      description:
        "The creation token: a retry with the same token converges on the existing resource.",
    }),
  ),
});
