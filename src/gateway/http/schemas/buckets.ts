// Buckets: create / PATCH bodies, the descriptor, listings.
import { Type } from "typebox";
import { Int64, Uint32, Uint64 } from "./integers.ts";

const bucketName = Type.String({
  pattern: "^[a-z0-9][a-z0-9-]{1,46}[a-z0-9]$",
  description: "3 to 48 of a-z, 0-9 and -, not starting or ending with -.",
});

const config = {
  location: Type.String({
    description: "Where the bucket's data lives (the star's storage location).",
  }),
  create_stream_on_append: Type.Boolean({
    description: "An append to a missing stream creates it.",
  }),
  create_stream_on_read: Type.Boolean({
    description: "A read of a missing stream creates it (empty).",
  }),
  default_class: Type.Ref("Class"),
  default_producer_policy: Type.Ref("ProducerPolicy"),
  default_retention_max_age_ms: Uint64(
    "Default age-based retention in milliseconds; 0 is unbounded",
  ),
  default_retention_max_bytes: Uint64("Default size-based retention in bytes; 0 is unbounded"),
  default_batch_max_bytes: Uint64("Default group commit bytes per flight"),
  default_batch_max_records: Uint32("Default group commit records per flight"),
  default_batch_max_delay_ms: Uint32("Default group commit wait, in milliseconds"),
  default_throughput_max_bytes_per_second: Uint64("Default append throughput cap; 0 is unlimited"),
  default_timestamping_mode: Type.Ref("TimestampingMode"),
  default_timestamping_uncapped: Type.Boolean(),
  default_delete_on_empty_min_age_ms: Uint64(
    "Default age after which an empty stream is deleted, in milliseconds; 0 is never",
  ),
};

/** In bodies every configuration field is optional: absent is the star's default, or unchanged. */
const configFields = Type.Partial(Type.Object(config)).properties;

const bucketExample = {
  name: "shop",
  location: "",
  create_stream_on_append: true,
  create_stream_on_read: false,
  default_class: "CLASS_STANDARD",
  default_producer_policy: "PRODUCER_POLICY_ANY",
  default_retention_max_age_ms: 0,
  default_retention_max_bytes: 0,
  default_batch_max_bytes: 1048576,
  default_batch_max_records: 1000,
  default_batch_max_delay_ms: 5,
  default_throughput_max_bytes_per_second: 0,
  default_timestamping_mode: "TIMESTAMPING_MODE_CLIENT_PREFER",
  default_timestamping_uncapped: false,
  default_delete_on_empty_min_age_ms: 0,
  creation_token: "",
  created_at_unix_ms: 1709481600000,
};

export const CreateBucketBody = Type.Object(
  {
    name: bucketName,
    ...configFields,
    default_class: Type.Optional(Type.Ref("ClassOnCreate")),
    default_producer_policy: Type.Optional(Type.Ref("ProducerPolicyOnCreate")),
    default_timestamping_mode: Type.Optional(Type.Ref("TimestampingModeOnCreate")),
  },
  {
    $id: "CreateBucketBody",
    additionalProperties: false,
    description:
      "CreateBucket: the name and any configuration; an absent field takes the star's default.",
    examples: [{ name: "shop", create_stream_on_append: true, default_class: "CLASS_EXPRESS" }],
  },
);

export const BucketConfig = Type.Object(configFields, {
  $id: "BucketConfig",
  additionalProperties: false,
  description:
    "ReconfigureBucket (PATCH): an absent field is unchanged, a present one is set (0 included). null is refused.",
  examples: [{ create_stream_on_read: true, default_retention_max_age_ms: 0 }],
});

export const Bucket = Type.Object(
  {
    name: Type.String(),
    ...config,
    creation_token: Type.String({
      description: "The nova-request-token the bucket was created with.",
    }),
    created_at_unix_ms: Int64("Creation time"),
    deleted_at_unix_ms: Type.Optional(
      Int64("Deletion time; present only while the bucket is being deleted"),
    ),
  },
  {
    $id: "Bucket",
    additionalProperties: false,
    description: "A bucket's descriptor: its flags and the defaults its streams take.",
    examples: [bucketExample],
  },
);

export const ListBucketsResponse = Type.Object(
  {
    buckets: Type.Array(Type.Ref("Bucket")),
    next: Type.String({
      description: "The cursor for the next page (start_after); empty when complete.",
    }),
  },
  {
    $id: "ListBucketsResponse",
    additionalProperties: false,
    description: "One page of buckets.",
    examples: [{ buckets: [bucketExample], next: "" }],
  },
);
