// Stream and bucket configuration between JSON and the proto: create and PATCH bodies in, Stream
// and Bucket descriptors (and their listings) out. Enums travel as their proto names.
import type { Bucket__Output } from "../../gen/nova/v1/Bucket.ts";
import type { BucketConfig } from "../../gen/nova/v1/BucketConfig.ts";
import { Class, type Class__Output } from "../../gen/nova/v1/Class.ts";
import type { GetStreamResponse__Output } from "../../gen/nova/v1/GetStreamResponse.ts";
import type { ListBucketsResponse__Output } from "../../gen/nova/v1/ListBucketsResponse.ts";
import type { ListStreamsResponse__Output } from "../../gen/nova/v1/ListStreamsResponse.ts";
import { ProducerPolicy, type ProducerPolicy__Output } from "../../gen/nova/v1/ProducerPolicy.ts";
import type { Stream__Output } from "../../gen/nova/v1/Stream.ts";
import type { StreamConfig } from "../../gen/nova/v1/StreamConfig.ts";
import type { StreamReconfiguration } from "../../gen/nova/v1/StreamReconfiguration.ts";
import {
  TimestampingMode,
  type TimestampingMode__Output,
} from "../../gen/nova/v1/TimestampingMode.ts";
import { internal, invalidArgument } from "../errors/index.ts";
import { asBoolean, asObject, asString, asWellFormed, rejectUnknown } from "./fields.ts";
import {
  type ExactInt,
  type Int64Mode,
  readExactInt,
  readUint32,
  UINT64,
  writeExactInt,
} from "./integers.ts";
import { checkBucketName, checkStreamKey } from "./names.ts";

type EnumValues = Readonly<Record<string, string>>;
type FieldKind = "uint64" | "uint32" | "bool" | "string" | EnumValues;
type FieldTable = Readonly<Record<string, FieldKind>>;

const STREAM_CONFIG: FieldTable = {
  class: Class,
  producer_policy: ProducerPolicy,
  retention_max_age_ms: "uint64",
  retention_max_bytes: "uint64",
  batch_max_bytes: "uint64",
  batch_max_records: "uint32",
  batch_max_delay_ms: "uint32",
  throughput_max_bytes_per_second: "uint64",
  timestamping_mode: TimestampingMode,
  timestamping_uncapped: "bool",
  delete_on_empty_min_age_ms: "uint64",
};

const BUCKET_CONFIG: FieldTable = {
  location: "string",
  create_stream_on_append: "bool",
  create_stream_on_read: "bool",
  default_class: Class,
  default_producer_policy: ProducerPolicy,
  default_retention_max_age_ms: "uint64",
  default_retention_max_bytes: "uint64",
  default_batch_max_bytes: "uint64",
  default_batch_max_records: "uint32",
  default_batch_max_delay_ms: "uint32",
  default_throughput_max_bytes_per_second: "uint64",
  default_timestamping_mode: TimestampingMode,
  default_timestamping_uncapped: "bool",
  default_delete_on_empty_min_age_ms: "uint64",
};

const known = (table: FieldTable, ...more: string[]): ReadonlySet<string> =>
  new Set([...Object.keys(table), ...more]);

const STREAM_CREATE_FIELDS = known(STREAM_CONFIG, "key");
const STREAM_PATCH_FIELDS = known(STREAM_CONFIG);
const BUCKET_CREATE_FIELDS = known(BUCKET_CONFIG, "name");
const BUCKET_PATCH_FIELDS = known(BUCKET_CONFIG);

/**
 * The present members of `obj` per the table. Present means set, zero included. An explicit null
 * is refused (it is neither "absent" nor a value). An UNSPECIFIED enum means the default on a
 * create, as an absent field does, so it is left out; on PATCH it is refused (omitting the field
 * says "unchanged").
 */
function configFromJson(
  obj: Record<string, unknown>,
  table: FieldTable,
  mode: "create" | "patch",
): Record<string, string | number | boolean> {
  const omit = `omit it to ${mode === "create" ? "take the default" : "leave it unchanged"}`;
  const out: Record<string, string | number | boolean> = {};
  for (const [field, kind] of Object.entries(table)) {
    const value = obj[field];
    if (value === undefined) continue;
    if (value === null) throw invalidArgument(field, `must not be null; ${omit}`);
    if (kind === "uint64")
      out[field] = readExactInt(value, UINT64, field, invalidArgument).toString();
    else if (kind === "uint32") out[field] = readUint32(value, field, invalidArgument);
    else if (kind === "bool") out[field] = asBoolean(value, field, invalidArgument);
    else if (kind === "string") {
      out[field] = asWellFormed(asString(value, field, invalidArgument), field, invalidArgument);
    } else {
      const named = Object.keys(kind).filter((n) => !n.endsWith("_UNSPECIFIED"));
      const name = asString(value, field, invalidArgument);
      if (mode === "create" && name.endsWith("_UNSPECIFIED") && Object.hasOwn(kind, name)) continue;
      if (!named.includes(name)) {
        throw invalidArgument(
          field,
          `must be one of ${named.join(", ")}, not ${JSON.stringify(name)}; ${omit}`,
        );
      }
      out[field] = name;
    }
  }
  return out;
}

/** The CreateStream body `{ key, ...config }`. */
export function createStreamFromJson(body: unknown): { key: string; config: StreamConfig } {
  const obj = asObject(body, "body", invalidArgument);
  rejectUnknown(obj, STREAM_CREATE_FIELDS, "", invalidArgument);
  if (obj.key === undefined) throw invalidArgument("key", "is required");
  const key = checkStreamKey(obj.key, "key", invalidArgument);
  return { key, config: configFromJson(obj, STREAM_CONFIG, "create") as StreamConfig };
}

/** The ReconfigureStream (PATCH) body: absent leaves a value unchanged, present sets it. */
export function streamReconfigurationFromJson(body: unknown): StreamReconfiguration {
  const obj = asObject(body, "body", invalidArgument);
  rejectUnknown(obj, STREAM_PATCH_FIELDS, "", invalidArgument);
  return configFromJson(obj, STREAM_CONFIG, "patch") as StreamReconfiguration;
}

/** The CreateBucket body `{ name, ...config }`. */
export function createBucketFromJson(body: unknown): { name: string; config: BucketConfig } {
  const obj = asObject(body, "body", invalidArgument);
  rejectUnknown(obj, BUCKET_CREATE_FIELDS, "", invalidArgument);
  if (obj.name === undefined) throw invalidArgument("name", "is required");
  const name = checkBucketName(obj.name, "name", invalidArgument);
  return { name, config: configFromJson(obj, BUCKET_CONFIG, "create") as BucketConfig };
}

/** The ReconfigureBucket (PATCH) body: absent leaves a value unchanged, present sets it. */
export function bucketReconfigurationFromJson(body: unknown): BucketConfig {
  const obj = asObject(body, "body", invalidArgument);
  rejectUnknown(obj, BUCKET_PATCH_FIELDS, "", invalidArgument);
  return configFromJson(obj, BUCKET_CONFIG, "patch") as BucketConfig;
}

export interface StreamJson {
  bucket: string;
  key: string;
  stream_id: string;
  class: Class__Output;
  producer_policy: ProducerPolicy__Output;
  retention_max_age_ms: ExactInt;
  retention_max_bytes: ExactInt;
  batch_max_bytes: ExactInt;
  batch_max_records: number;
  batch_max_delay_ms: number;
  throughput_max_bytes_per_second: ExactInt;
  timestamping_mode: TimestampingMode__Output;
  timestamping_uncapped: boolean;
  delete_on_empty_min_age_ms: ExactInt;
  creation_token: string;
  created_at_unix_ms: ExactInt;
  /** Present only on a tombstone (non-zero). */
  deleted_at_unix_ms?: ExactInt;
}

export function streamToJson(s: Stream__Output, mode: Int64Mode): StreamJson {
  const out: StreamJson = {
    bucket: s.bucket,
    key: s.key,
    stream_id: s.stream_id,
    class: s.class,
    producer_policy: s.producer_policy,
    retention_max_age_ms: writeExactInt(s.retention_max_age_ms, mode),
    retention_max_bytes: writeExactInt(s.retention_max_bytes, mode),
    batch_max_bytes: writeExactInt(s.batch_max_bytes, mode),
    batch_max_records: s.batch_max_records,
    batch_max_delay_ms: s.batch_max_delay_ms,
    throughput_max_bytes_per_second: writeExactInt(s.throughput_max_bytes_per_second, mode),
    timestamping_mode: s.timestamping_mode,
    timestamping_uncapped: s.timestamping_uncapped,
    delete_on_empty_min_age_ms: writeExactInt(s.delete_on_empty_min_age_ms, mode),
    creation_token: s.creation_token,
    created_at_unix_ms: writeExactInt(s.created_at_unix_ms, mode),
  };
  if (BigInt(s.deleted_at_unix_ms) !== 0n) {
    out.deleted_at_unix_ms = writeExactInt(s.deleted_at_unix_ms, mode);
  }
  return out;
}

export interface BucketJson {
  name: string;
  location: string;
  create_stream_on_append: boolean;
  create_stream_on_read: boolean;
  default_class: Class__Output;
  default_producer_policy: ProducerPolicy__Output;
  default_retention_max_age_ms: ExactInt;
  default_retention_max_bytes: ExactInt;
  default_batch_max_bytes: ExactInt;
  default_batch_max_records: number;
  default_batch_max_delay_ms: number;
  default_throughput_max_bytes_per_second: ExactInt;
  default_timestamping_mode: TimestampingMode__Output;
  default_timestamping_uncapped: boolean;
  default_delete_on_empty_min_age_ms: ExactInt;
  creation_token: string;
  created_at_unix_ms: ExactInt;
  /** Present only on a tombstone (non-zero). */
  deleted_at_unix_ms?: ExactInt;
}

export function bucketToJson(b: Bucket__Output, mode: Int64Mode): BucketJson {
  const out: BucketJson = {
    name: b.name,
    location: b.location,
    create_stream_on_append: b.create_stream_on_append,
    create_stream_on_read: b.create_stream_on_read,
    default_class: b.default_class,
    default_producer_policy: b.default_producer_policy,
    default_retention_max_age_ms: writeExactInt(b.default_retention_max_age_ms, mode),
    default_retention_max_bytes: writeExactInt(b.default_retention_max_bytes, mode),
    default_batch_max_bytes: writeExactInt(b.default_batch_max_bytes, mode),
    default_batch_max_records: b.default_batch_max_records,
    default_batch_max_delay_ms: b.default_batch_max_delay_ms,
    default_throughput_max_bytes_per_second: writeExactInt(
      b.default_throughput_max_bytes_per_second,
      mode,
    ),
    default_timestamping_mode: b.default_timestamping_mode,
    default_timestamping_uncapped: b.default_timestamping_uncapped,
    default_delete_on_empty_min_age_ms: writeExactInt(b.default_delete_on_empty_min_age_ms, mode),
    creation_token: b.creation_token,
    created_at_unix_ms: writeExactInt(b.created_at_unix_ms, mode),
  };
  if (BigInt(b.deleted_at_unix_ms) !== 0n) {
    out.deleted_at_unix_ms = writeExactInt(b.deleted_at_unix_ms, mode);
  }
  return out;
}

/** GetStream: the descriptor and the installed fencing token ("" when none). */
export function getStreamResponseToJson(
  r: GetStreamResponse__Output,
  mode: Int64Mode,
): { stream: StreamJson; fencing_token: string; closed: boolean } {
  return {
    stream: streamToJson(requireDescriptor(r.stream), mode),
    fencing_token: r.fencing_token,
    closed: r.closed,
  };
}

/** `next` is "" when the listing is complete. */
export function listStreamsResponseToJson(
  r: ListStreamsResponse__Output,
  mode: Int64Mode,
): { streams: StreamJson[]; next: string } {
  return { streams: r.streams.map((s) => streamToJson(s, mode)), next: r.next };
}

export function listBucketsResponseToJson(
  r: ListBucketsResponse__Output,
  mode: Int64Mode,
): { buckets: BucketJson[]; next: string } {
  return { buckets: r.buckets.map((b) => bucketToJson(b, mode)), next: r.next };
}

/** A star's response without its descriptor breaks the protocol: a 500, not an empty object. */
export function requireDescriptor<T>(descriptor: T | null): T {
  if (descriptor === null) throw internal(new Error("the star's response has no descriptor"));
  return descriptor;
}
