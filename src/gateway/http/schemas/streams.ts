// Streams: create / PATCH bodies, the descriptor, listings, trim and fence.
import { Type } from "typebox";
import { Int64, Uint32, Uint64 } from "./integers.ts";

const T = 1709481600000;

const streamExample = {
  bucket: "shop",
  key: "orders/eu",
  stream_id: "01HQ8Z3V6V2Y4K",
  class: "CLASS_EXPRESS",
  producer_policy: "PRODUCER_POLICY_ANY",
  retention_max_age_ms: 604800000,
  retention_max_bytes: 0,
  batch_max_bytes: 1048576,
  batch_max_records: 1000,
  batch_max_delay_ms: 5,
  throughput_max_bytes_per_second: 0,
  timestamping_mode: "TIMESTAMPING_MODE_CLIENT_PREFER",
  timestamping_uncapped: false,
  delete_on_empty_min_age_ms: 0,
  creation_token: "",
  created_at_unix_ms: T,
};

const streamKey = Type.String({
  minLength: 1,
  description:
    "The stream key: any UTF-8, 1 to 512 bytes (percent-encoded in paths: a/b is a%2Fb).",
});

const config = {
  class: Type.Ref("Class"),
  producer_policy: Type.Ref("ProducerPolicy"),
  retention_max_age_ms: Uint64("Age-based retention in milliseconds; 0 is unbounded"),
  retention_max_bytes: Uint64("Size-based retention in bytes; 0 is unbounded"),
  batch_max_bytes: Uint64("Group commit: bytes per flight"),
  batch_max_records: Uint32("Group commit: records per flight"),
  batch_max_delay_ms: Uint32("Group commit: the longest wait for a flight, in milliseconds"),
  throughput_max_bytes_per_second: Uint64("Append throughput cap; 0 is unlimited"),
  timestamping_mode: Type.Ref("TimestampingMode"),
  timestamping_uncapped: Type.Boolean({
    description:
      "Client stamps may exceed arrival time (an application's own scale); excludes age retention.",
  }),
  delete_on_empty_min_age_ms: Uint64(
    "Once the stream has no records (all trimmed or expired) and is at least this old, its star deletes it; 0 is never",
  ),
};

/** In bodies every configuration field is optional: absent is the default, or unchanged. */
const configFields = Type.Partial(Type.Object(config)).properties;

export const CreateStreamBody = Type.Object(
  {
    key: streamKey,
    ...configFields,
    class: Type.Optional(Type.Ref("ClassOnCreate")),
    producer_policy: Type.Optional(Type.Ref("ProducerPolicyOnCreate")),
    timestamping_mode: Type.Optional(Type.Ref("TimestampingModeOnCreate")),
  },
  {
    $id: "CreateStreamBody",
    additionalProperties: false,
    description:
      "CreateStream: the key and any configuration; an absent field takes the bucket's default.",
    examples: [{ key: "orders/eu", class: "CLASS_EXPRESS", retention_max_age_ms: 604800000 }],
  },
);

export const StreamReconfiguration = Type.Object(configFields, {
  $id: "StreamReconfiguration",
  additionalProperties: false,
  description:
    "ReconfigureStream (PATCH): an absent field is unchanged, a present one is set (0 included). null is refused.",
  examples: [{ retention_max_age_ms: 0, producer_policy: "PRODUCER_POLICY_FENCED" }],
});

export const Stream = Type.Object(
  {
    bucket: Type.String(),
    key: Type.String(),
    stream_id: Type.String(),
    ...config,
    creation_token: Type.String({
      description: "The nova-request-token the stream was created with.",
    }),
    created_at_unix_ms: Int64("Creation time"),
    deleted_at_unix_ms: Type.Optional(
      Int64("Deletion time; present only while the stream is being deleted"),
    ),
  },
  {
    $id: "Stream",
    additionalProperties: false,
    description: "A stream's descriptor.",
    examples: [streamExample],
  },
);

export const GetStreamResponse = Type.Object(
  {
    stream: Type.Ref("Stream"),
    fencing_token: Type.String({
      description: "The installed fencing token; empty when none is installed.",
    }),
    closed: Type.Boolean({
      description: "Closed for appends (POST .../close); reads still serve every record.",
    }),
  },
  {
    $id: "GetStreamResponse",
    additionalProperties: false,
    description: "A stream's descriptor, its installed fencing token, and whether it is closed.",
    examples: [{ stream: streamExample, fencing_token: "", closed: false }],
  },
);

export const ListStreamsResponse = Type.Object(
  {
    streams: Type.Array(Type.Ref("Stream")),
    next: Type.String({
      description: "The cursor for the next page (start_after); empty when complete.",
    }),
  },
  {
    $id: "ListStreamsResponse",
    additionalProperties: false,
    description: "One page of a bucket's streams.",
    examples: [{ streams: [streamExample], next: "" }],
  },
);

export const TrimBody = Type.Object(
  {
    seq_num: Type.Optional(Uint64("Trim every record before this seq_num")),
    timestamp_ms: Type.Optional(Int64("Trim every record stamped before this time")),
  },
  {
    $id: "TrimBody",
    additionalProperties: false,
    // Exactly one of the two; said without oneOf so it holds even where Ajv strips extra fields.
    minProperties: 1,
    maxProperties: 1,
    description: "The trim point: exactly one of seq_num or timestamp_ms. Trimming is monotonic.",
    examples: [{ seq_num: 100 }, { timestamp_ms: T }],
  },
);

export const FenceBody = Type.Object(
  {
    fencing_token: Type.String({
      maxLength: 48,
      description: "The token to install (plain text, at most 48 UTF-8 bytes); empty clears it.",
    }),
  },
  {
    $id: "FenceBody",
    additionalProperties: false,
    description: "Installs, rotates or clears the stream's fencing token.",
    examples: [{ fencing_token: "writer-7" }, { fencing_token: "" }],
  },
);

export const FenceResponse = Type.Object(
  {
    tail: Type.Ref("Position", {
      description: "The admission boundary: appends from here on see the new token.",
    }),
  },
  {
    $id: "FenceResponse",
    additionalProperties: false,
    description: "The fence's admission boundary.",
    examples: [{ tail: { seq_num: 150, timestamp_ms: T } }],
  },
);
