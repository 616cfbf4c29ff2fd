// Pure rules for descriptors: defaults on create, partial reconfiguration (absent unchanged,
// present set, zero included, UNSPECIFIED refused), names, and the uncapped + age-retention ban.

import {
  BUCKET_NAME,
  MAX_CREATION_TOKEN_BYTES,
  MAX_STREAM_KEY_BYTES,
} from "../../contract/wire-limits.ts";
import type { Bucket__Output } from "../../gen/nova/v1/Bucket.ts";
import type { BucketConfig__Output } from "../../gen/nova/v1/BucketConfig.ts";
import type { Stream__Output } from "../../gen/nova/v1/Stream.ts";
import type { StreamConfig__Output } from "../../gen/nova/v1/StreamConfig.ts";
import type { StreamReconfiguration__Output } from "../../gen/nova/v1/StreamReconfiguration.ts";
import { invalidArgument } from "../errors.ts";
import { creationDigest } from "./creation.ts";

/** What a bucket's defaults are when its creator names none. */
export const STAR_BUCKET_DEFAULTS = {
  default_class: "CLASS_STANDARD",
  default_producer_policy: "PRODUCER_POLICY_ANY",
  default_retention_max_age_ms: "0",
  default_retention_max_bytes: "0",
  default_batch_max_bytes: String(1024 * 1024),
  default_batch_max_records: 1000,
  default_batch_max_delay_ms: 5,
  default_throughput_max_bytes_per_second: "0",
  default_timestamping_mode: "TIMESTAMPING_MODE_CLIENT_PREFER",
  default_timestamping_uncapped: false,
  default_delete_on_empty_min_age_ms: "0",
} as const satisfies Partial<Bucket__Output>;

export function checkBucketName(name: string): void {
  if (!BUCKET_NAME.test(name)) {
    throw invalidArgument(
      `bucket name ${JSON.stringify(name)} must be 3 to 48 of a-z 0-9 -, without a leading or trailing hyphen`,
    );
  }
}

export function checkStreamKey(key: string): void {
  const bytes = Buffer.byteLength(key, "utf8");
  if (bytes < 1 || bytes > MAX_STREAM_KEY_BYTES) {
    throw invalidArgument(
      `stream key must be 1 to ${MAX_STREAM_KEY_BYTES} UTF-8 bytes, got ${bytes}`,
    );
  }
}

/** A creation token is kept in its descriptor and shown with it in every answer: bounded. */
export function checkCreationToken(token: string): void {
  const bytes = Buffer.byteLength(token, "utf8");
  if (bytes > MAX_CREATION_TOKEN_BYTES) {
    throw invalidArgument(
      `creation_token must be at most ${MAX_CREATION_TOKEN_BYTES} UTF-8 bytes, got ${bytes}`,
    );
  }
}

const UNSPECIFIED = /_UNSPECIFIED$/;

function checkAgeRetention(uncapped: boolean, maxAgeMs: string, what: string): void {
  if (uncapped && maxAgeMs !== "0") {
    throw invalidArgument(
      `${what}: timestamping_uncapped and age-based retention are mutually exclusive (age retention reads record time as wall clock)`,
    );
  }
}

function checkBatchLimits(maxBytes: string, maxRecords: number, what: string): void {
  if (maxBytes === "0") throw invalidArgument(`${what}: batch_max_bytes must be at least 1`);
  if (maxRecords === 0) throw invalidArgument(`${what}: batch_max_records must be at least 1`);
}

type Writable<T> = { -readonly [K in keyof T]: T[K] };

/** Copies every present field of `config` onto `target`, refusing named-enum violations. */
function assignPresent<T extends object>(
  target: Writable<T>,
  config: object,
  fields: readonly (keyof T & string)[],
): void {
  const source = config as Record<string, unknown>;
  for (const field of fields) {
    const value = source[field];
    if (value === undefined) continue;
    if (typeof value === "string" && UNSPECIFIED.test(value)) {
      throw invalidArgument(`${field} must name a value, not ${value}`);
    }
    (target as Record<string, unknown>)[field] = value;
  }
}

const BUCKET_FIELDS = [
  "location",
  "create_stream_on_append",
  "create_stream_on_read",
  "default_class",
  "default_producer_policy",
  "default_retention_max_age_ms",
  "default_retention_max_bytes",
  "default_batch_max_bytes",
  "default_batch_max_records",
  "default_batch_max_delay_ms",
  "default_throughput_max_bytes_per_second",
  "default_timestamping_mode",
  "default_timestamping_uncapped",
  "default_delete_on_empty_min_age_ms",
] as const satisfies readonly (keyof Bucket__Output)[];

export function newBucket(
  name: string,
  config: BucketConfig__Output | null,
  creationToken: string,
  nowMs: number,
): Bucket__Output {
  const bucket: Bucket__Output = {
    name,
    location: "local",
    create_stream_on_append: false,
    create_stream_on_read: false,
    ...STAR_BUCKET_DEFAULTS,
    creation_token: creationToken,
    creation_digest: creationDigest(creationToken, config),
    created_at_unix_ms: String(nowMs),
    deleted_at_unix_ms: "0",
    streams_swept: false,
  };
  return reconfigureBucket(bucket, config);
}

export function reconfigureBucket(
  bucket: Bucket__Output,
  config: BucketConfig__Output | null,
): Bucket__Output {
  const next = { ...bucket };
  if (config) assignPresent(next, config, BUCKET_FIELDS);
  checkAgeRetention(
    next.default_timestamping_uncapped,
    next.default_retention_max_age_ms,
    "bucket defaults",
  );
  checkBatchLimits(next.default_batch_max_bytes, next.default_batch_max_records, "bucket defaults");
  return next;
}

const STREAM_FIELDS = [
  "class",
  "producer_policy",
  "retention_max_age_ms",
  "retention_max_bytes",
  "batch_max_bytes",
  "batch_max_records",
  "batch_max_delay_ms",
  "throughput_max_bytes_per_second",
  "timestamping_mode",
  "timestamping_uncapped",
  "delete_on_empty_min_age_ms",
  "forked",
  "retired_at_unix_ms",
] as const satisfies readonly (keyof Stream__Output)[];

export function newStream(
  bucket: Bucket__Output,
  key: string,
  config: StreamConfig__Output | null,
  creationToken: string,
  streamId: string,
  nowMs: number,
): Stream__Output {
  const stream: Stream__Output = {
    stream_id: streamId,
    bucket: bucket.name,
    key,
    class: bucket.default_class,
    producer_policy: bucket.default_producer_policy,
    retention_max_age_ms: bucket.default_retention_max_age_ms,
    retention_max_bytes: bucket.default_retention_max_bytes,
    batch_max_bytes: bucket.default_batch_max_bytes,
    batch_max_records: bucket.default_batch_max_records,
    batch_max_delay_ms: bucket.default_batch_max_delay_ms,
    throughput_max_bytes_per_second: bucket.default_throughput_max_bytes_per_second,
    timestamping_mode: bucket.default_timestamping_mode,
    timestamping_uncapped: bucket.default_timestamping_uncapped,
    delete_on_empty_min_age_ms: bucket.default_delete_on_empty_min_age_ms,
    content_type: config?.content_type ?? "",
    expire_idle_ms: config?.expire_idle_ms ?? "0",
    expires_at_unix_ms: config?.expires_at_unix_ms ?? "0",
    fork_origin: config?.fork_origin ?? "",
    forked: false,
    retired_at_unix_ms: "0",
    creation_token: creationToken,
    creation_digest: creationDigest(creationToken, config),
    created_at_unix_ms: String(nowMs),
    deleted_at_unix_ms: "0",
  };
  if (config) {
    // On create an UNSPECIFIED enum means "the bucket's default", so drop those before copying.
    const present = Object.fromEntries(
      Object.entries(config).filter(([, v]) => !(typeof v === "string" && UNSPECIFIED.test(v))),
    );
    assignPresent(stream, present, STREAM_FIELDS);
  }
  checkAgeRetention(stream.timestamping_uncapped, stream.retention_max_age_ms, "stream config");
  checkBatchLimits(stream.batch_max_bytes, stream.batch_max_records, "stream config");
  checkContentType(stream.content_type);
  if (stream.expire_idle_ms !== "0" && stream.expires_at_unix_ms !== "0") {
    throw invalidArgument(
      "stream config: expire_idle_ms and expires_at_unix_ms are mutually exclusive; set one",
    );
  }
  return stream;
}

/** A MIME type as HTTP carries it: visible ASCII and spaces, at most 256 bytes. */
function checkContentType(type: string): void {
  if (type.length > 256 || !/^[\x20-\x7e]*$/.test(type)) {
    throw invalidArgument(
      "stream config: content_type must be at most 256 characters of visible ASCII",
    );
  }
}

export function reconfigureStream(
  stream: Stream__Output,
  config: StreamReconfiguration__Output | null,
): Stream__Output {
  const next = { ...stream };
  if (config) assignPresent(next, config, STREAM_FIELDS);
  checkAgeRetention(next.timestamping_uncapped, next.retention_max_age_ms, "stream config");
  checkBatchLimits(next.batch_max_bytes, next.batch_max_records, "stream config");
  return next;
}
