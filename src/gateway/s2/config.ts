// Basin and stream configuration between S2's JSON and nova's protos. Nova's buckets are S2's
// basins (a basin's default stream config is the bucket's default_* fields) and streams are
// streams. What S2 has and nova does not (stream ciphers) is refused when asked for, never
// dropped; what nova has and S2 does not (producer policy, retention by bytes, batching
// and throughput settings) is left as it is. Pure: no I/O.
import type { Bucket__Output } from "../../gen/nova/v1/Bucket.ts";
import type { BucketConfig } from "../../gen/nova/v1/BucketConfig.ts";
import type { Class } from "../../gen/nova/v1/Class.ts";
import type { Stream__Output } from "../../gen/nova/v1/Stream.ts";
import type { TimestampingMode } from "../../gen/nova/v1/TimestampingMode.ts";
import {
  asBoolean,
  asObject,
  asString,
  fieldPath,
  readExactInt,
  rejectUnknown,
  UINT64,
} from "../translate/index.ts";
import { s2Error } from "./errors.ts";
import { s2Invalid } from "./json.ts";

/**
 * The stream settings S2 and nova share, in nova's terms (a StreamConfig on create, a
 * StreamReconfiguration on reconfigure); absent: not given.
 */
export interface StreamSettings {
  class?: Class;
  retention_max_age_ms?: string;
  timestamping_mode?: TimestampingMode;
  timestamping_uncapped?: boolean;
  delete_on_empty_min_age_ms?: string;
}

const CLASSES: Record<string, Class> = { standard: "CLASS_STANDARD", express: "CLASS_EXPRESS" };
const MODES: Record<string, TimestampingMode> = {
  "client-prefer": "TIMESTAMPING_MODE_CLIENT_PREFER",
  "client-require": "TIMESTAMPING_MODE_CLIENT_REQUIRE",
  arrival: "TIMESTAMPING_MODE_ARRIVAL",
};
const STREAM_FIELDS: ReadonlySet<string> = new Set([
  "storage_class",
  "retention_policy",
  "timestamping",
  "delete_on_empty",
]);
const MAX_AGE_SECONDS = ((1n << 64n) - 1n) / 1000n;

/**
 * S2's StreamConfig (or StreamReconfiguration: the same fields) as nova's settings. Nova cannot
 * reset one setting to a default, so S2's `null` for "reset" is refused on a reconfiguration.
 */
export function streamSettingsFromS2(
  value: unknown,
  field: string,
  partial: boolean,
): StreamSettings {
  const settings: StreamSettings = {};
  if (value === undefined || value === null) return settings;
  const obj = asObject(value, field, s2Invalid);
  rejectUnknown(obj, STREAM_FIELDS, field, s2Invalid);
  /** Whether `parent[name]` is given; S2's null ("reset") is refused on a reconfiguration. */
  const given = (parent: Record<string, unknown>, at: string, name: string) => {
    const v = parent[name];
    if (v === null && partial) throw cannotReset(fieldPath(at, name));
    return v !== undefined && v !== null;
  };
  if (given(obj, field, "storage_class")) {
    settings.class = choice(obj.storage_class, CLASSES, fieldPath(field, "storage_class"));
  }
  if (given(obj, field, "retention_policy")) {
    settings.retention_max_age_ms = retention(
      obj.retention_policy,
      fieldPath(field, "retention_policy"),
    );
  }
  if (given(obj, field, "timestamping")) {
    const at = fieldPath(field, "timestamping");
    const ts = asObject(obj.timestamping, at, s2Invalid);
    rejectUnknown(ts, new Set(["mode", "uncapped"]), at, s2Invalid);
    if (given(ts, at, "mode")) {
      settings.timestamping_mode = choice(ts.mode, MODES, fieldPath(at, "mode"));
    }
    if (given(ts, at, "uncapped")) {
      settings.timestamping_uncapped = asBoolean(ts.uncapped, fieldPath(at, "uncapped"), s2Invalid);
    }
  }
  if (given(obj, field, "delete_on_empty")) {
    const at = fieldPath(field, "delete_on_empty");
    const doe = asObject(obj.delete_on_empty, at, s2Invalid);
    rejectUnknown(doe, new Set(["min_age_secs"]), at, s2Invalid);
    const ageField = fieldPath(at, "min_age_secs");
    // Absent: 0 (off) on a create, unchanged on a reconfiguration, as S2 reads it.
    if (given(doe, at, "min_age_secs") || !partial) {
      const age = readExactInt(doe.min_age_secs ?? 0, UINT64, ageField, s2Invalid);
      if (age > MAX_AGE_SECONDS) throw s2Invalid(ageField, `must be at most ${MAX_AGE_SECONDS}`);
      settings.delete_on_empty_min_age_ms = (age * 1000n).toString();
    }
  }
  return settings;
}

/** S2's null ("reset to the default") on a reconfiguration: nova has no such reset. */
export function cannotReset(field: string) {
  return s2Invalid(field, "nova cannot reset a setting to a default; give the value to set");
}

function choice<T>(value: unknown, names: Record<string, T>, field: string): T {
  const name = asString(value, field, s2Invalid);
  const found = names[name];
  if (found === undefined) {
    throw s2Invalid(
      field,
      `must be one of ${Object.keys(names).join(", ")}, not ${JSON.stringify(name)}`,
    );
  }
  return found;
}

/** `{"age": seconds}` or `{"infinite": {}}` as nova's max age in ms (0: unbounded). */
function retention(value: unknown, field: string): string {
  const obj = asObject(value, field, s2Invalid);
  rejectUnknown(obj, new Set(["age", "infinite"]), field, s2Invalid);
  // A null member is an absent one (S2's optional fields).
  const hasAge = obj.age !== undefined && obj.age !== null;
  if (hasAge === (obj.infinite !== undefined && obj.infinite !== null)) {
    throw s2Invalid(field, 'give exactly one of {"age": seconds} and {"infinite": {}}');
  }
  if (!hasAge) {
    asObject(obj.infinite, fieldPath(field, "infinite"), s2Invalid);
    return "0";
  }
  const age = readExactInt(obj.age, UINT64, fieldPath(field, "age"), s2Invalid);
  if (age === 0n) throw s2Invalid(fieldPath(field, "age"), "must be at least 1 second");
  if (age > MAX_AGE_SECONDS)
    throw s2Invalid(fieldPath(field, "age"), `must be at most ${MAX_AGE_SECONDS}`);
  return (age * 1000n).toString();
}

/** Whether an ensure's config names any setting, null included (which a reconfiguration refuses). */
export function namesAny(config: unknown): boolean {
  return typeof config === "object" && config !== null && Object.keys(config).length > 0;
}

export function bucketConfigFromSettings(s: StreamSettings): BucketConfig {
  const c: BucketConfig = {};
  if (s.class !== undefined) c.default_class = s.class;
  if (s.retention_max_age_ms !== undefined) c.default_retention_max_age_ms = s.retention_max_age_ms;
  if (s.timestamping_mode !== undefined) c.default_timestamping_mode = s.timestamping_mode;
  if (s.timestamping_uncapped !== undefined)
    c.default_timestamping_uncapped = s.timestamping_uncapped;
  if (s.delete_on_empty_min_age_ms !== undefined)
    c.default_delete_on_empty_min_age_ms = s.delete_on_empty_min_age_ms;
  return c;
}

/**
 * The BucketConfig that creates a basin: S2's config, and no server-side batching wait
 * (`default_batch_max_delay_ms` 0): S2 has none, its SDK batches on the client, and its fetch
 * transport sends one batch per round trip. A reconfiguration leaves the wait as it is.
 */
export function basinCreationConfig(config: BucketConfig): BucketConfig {
  return { default_batch_max_delay_ms: 0, ...config };
}

const BASIN_FIELDS: ReadonlySet<string> = new Set([
  "default_stream_config",
  "stream_cipher",
  "create_stream_on_append",
  "create_stream_on_read",
]);

/** S2's BasinConfig (or BasinReconfiguration) as nova's BucketConfig. */
export function bucketConfigFromS2(value: unknown, field: string, partial: boolean): BucketConfig {
  if (value === undefined || value === null) return {};
  const obj = asObject(value, field, s2Invalid);
  rejectUnknown(obj, BASIN_FIELDS, field, s2Invalid);
  if (obj.default_stream_config === null && partial) {
    throw cannotReset(fieldPath(field, "default_stream_config"));
  }
  if (obj.stream_cipher !== undefined && obj.stream_cipher !== null) {
    throw s2Invalid(
      fieldPath(field, "stream_cipher"),
      "nova does not encrypt records with client keys; leave it out",
    );
  }
  const config = bucketConfigFromSettings(
    streamSettingsFromS2(
      obj.default_stream_config,
      fieldPath(field, "default_stream_config"),
      partial,
    ),
  );
  for (const name of ["create_stream_on_append", "create_stream_on_read"] as const) {
    const v = obj[name];
    if (v === null && partial) throw s2Invalid(fieldPath(field, name), "give true or false");
    if (v !== undefined && v !== null)
      config[name] = asBoolean(v, fieldPath(field, name), s2Invalid);
  }
  return config;
}

// ---- out ----

const CLASS_NAMES: Record<string, string> = {
  CLASS_STANDARD: "standard",
  CLASS_EXPRESS: "express",
};
const MODE_NAMES: Record<string, string> = {
  TIMESTAMPING_MODE_CLIENT_PREFER: "client-prefer",
  TIMESTAMPING_MODE_CLIENT_REQUIRE: "client-require",
  TIMESTAMPING_MODE_ARRIVAL: "arrival",
};

interface NovaSettings {
  class: string;
  retention_max_age_ms: string;
  timestamping_mode: string;
  timestamping_uncapped: boolean;
  delete_on_empty_min_age_ms: string;
}

/** S2's StreamConfig for nova's settings; an age that is not whole seconds rounds up. */
export function streamConfigToS2(s: NovaSettings | Stream__Output) {
  const ms = BigInt(s.retention_max_age_ms);
  const emptyMs = BigInt(s.delete_on_empty_min_age_ms);
  return {
    storage_class: CLASS_NAMES[s.class] ?? "standard",
    retention_policy: ms === 0n ? { infinite: {} } : { age: (ms + 999n) / 1000n },
    timestamping: {
      mode: MODE_NAMES[s.timestamping_mode] ?? "client-prefer",
      uncapped: s.timestamping_uncapped,
    },
    delete_on_empty: { min_age_secs: (emptyMs + 999n) / 1000n },
  };
}

export function bucketToS2Config(b: Bucket__Output) {
  return {
    default_stream_config: streamConfigToS2({
      class: b.default_class,
      retention_max_age_ms: b.default_retention_max_age_ms,
      timestamping_mode: b.default_timestamping_mode,
      timestamping_uncapped: b.default_timestamping_uncapped,
      delete_on_empty_min_age_ms: b.default_delete_on_empty_min_age_ms,
    }),
    create_stream_on_append: b.create_stream_on_append,
    create_stream_on_read: b.create_stream_on_read,
  };
}

const iso = (ms: string) => new Date(Number(ms)).toISOString();

export function bucketToBasinInfo(b: Bucket__Output) {
  const deleted = b.deleted_at_unix_ms !== "0";
  return {
    name: b.name,
    created_at: iso(b.created_at_unix_ms),
    deleted_at: deleted ? iso(b.deleted_at_unix_ms) : null,
    location: b.location === "" ? null : b.location,
    state: deleted ? "deleting" : "active",
  };
}

export function streamToStreamInfo(s: Stream__Output) {
  return {
    name: s.key,
    created_at: iso(s.created_at_unix_ms),
    deleted_at: s.deleted_at_unix_ms === "0" ? null : iso(s.deleted_at_unix_ms),
    cipher: null,
  };
}

/** S2's basin names: 8 to 48 of a-z 0-9 -, not starting or ending with a hyphen. */
const BASIN_NAME = /^[a-z0-9][a-z0-9-]{6,46}[a-z0-9]$/;

/** Whether a bucket has an S2 name (nova's are 3 to 48 characters: some have none). */
export const isBasinName = (name: string): boolean => BASIN_NAME.test(name);

/** A basin name, or `code` naming `field`: invalid in a body, bad_path, bad_header. */
export function checkBasinName(
  name: unknown,
  field: string,
  code: "invalid" | "bad_path" | "bad_header",
): string {
  if (typeof name !== "string" || !BASIN_NAME.test(name)) {
    throw s2Error(
      code,
      `${field}: a basin name is 8 to 48 of a-z, 0-9 and -, not starting or ending with -; got ${JSON.stringify(name)}`,
    );
  }
  return name;
}
