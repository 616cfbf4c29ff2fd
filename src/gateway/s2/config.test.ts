import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import {
  basinCreationConfig,
  bucketConfigFromS2,
  bucketToBasinInfo,
  bucketToS2Config,
  checkBasinName,
  streamConfigToS2,
  streamSettingsFromS2,
} from "./config.ts";

const invalid = (says: string) => (err: { status: number; code: string; message: string }) =>
  err.status === 422 && err.code === "invalid" && err.message.includes(says);

const novaSettings = {
  class: "CLASS_STANDARD",
  retention_max_age_ms: "0",
  timestamping_mode: "TIMESTAMPING_MODE_CLIENT_PREFER",
  timestamping_uncapped: false,
  delete_on_empty_min_age_ms: "0",
};

test("a stream config read back is the config written (whole seconds of retention)", () => {
  fc.assert(
    fc.property(
      fc.constantFrom("standard", "express"),
      fc.option(fc.bigInt({ min: 1n, max: ((1n << 64n) - 1n) / 1000n }), { nil: undefined }),
      fc.constantFrom("client-prefer", "client-require", "arrival"),
      fc.boolean(),
      fc.bigInt({ min: 0n, max: ((1n << 64n) - 1n) / 1000n }),
      (storageClass, age, mode, uncapped, emptyAge) => {
        const s2 = {
          storage_class: storageClass,
          retention_policy: age === undefined ? { infinite: {} } : { age },
          timestamping: { mode, uncapped },
          delete_on_empty: { min_age_secs: emptyAge },
        };
        // As parseJsonExact gives it: integers beyond 2^53-1 as digits.
        const sent = {
          ...s2,
          retention_policy: age === undefined ? { infinite: {} } : { age: age.toString() },
          delete_on_empty: { min_age_secs: emptyAge.toString() },
        };
        const settings = streamSettingsFromS2(sent, "config", false);
        const back = streamConfigToS2({
          class: settings.class as string,
          retention_max_age_ms: settings.retention_max_age_ms as string,
          timestamping_mode: settings.timestamping_mode as string,
          timestamping_uncapped: settings.timestamping_uncapped as boolean,
          delete_on_empty_min_age_ms: settings.delete_on_empty_min_age_ms as string,
        });
        assert.deepEqual(back, s2);
      },
    ),
  );
});

test("a nova max age that is not whole seconds shows rounded up", () => {
  const shown = streamConfigToS2({ ...novaSettings, retention_max_age_ms: "1500" });
  assert.deepEqual(shown.retention_policy, { age: 2n });
});

test("a basin config's default stream config is the bucket's default_* fields", () => {
  const config = bucketConfigFromS2(
    {
      default_stream_config: { storage_class: "express", retention_policy: { age: 60 } },
      create_stream_on_append: true,
    },
    "config",
    false,
  );
  assert.deepEqual(config, {
    default_class: "CLASS_EXPRESS",
    default_retention_max_age_ms: "60000",
    create_stream_on_append: true,
  });
});

test("delete_on_empty is nova's delete_on_empty_min_age_ms; 0 turns it off", () => {
  assert.deepEqual(streamSettingsFromS2({ delete_on_empty: { min_age_secs: 5 } }, "c", false), {
    delete_on_empty_min_age_ms: "5000",
  });
  assert.deepEqual(streamSettingsFromS2({ delete_on_empty: { min_age_secs: 0 } }, "c", false), {
    delete_on_empty_min_age_ms: "0",
  });
  assert.deepEqual(
    bucketConfigFromS2({ default_stream_config: { delete_on_empty: {} } }, "c", false),
    { default_delete_on_empty_min_age_ms: "0" },
  );
  // On a reconfiguration an absent min_age_secs leaves the setting as it is.
  assert.deepEqual(streamSettingsFromS2({ delete_on_empty: {} }, "c", true), {});
  assert.deepEqual(
    bucketConfigFromS2({ default_stream_config: { delete_on_empty: {} } }, "c", true),
    {},
  );
});

test("a reconfiguration's null, at any depth, is refused: nova cannot reset to a default", () => {
  for (const [value, field] of [
    [{ timestamping: { mode: null } }, "body.timestamping.mode"],
    [{ timestamping: { uncapped: null } }, "body.timestamping.uncapped"],
    [{ delete_on_empty: { min_age_secs: null } }, "body.delete_on_empty.min_age_secs"],
  ] as const) {
    assert.throws(() => streamSettingsFromS2(value, "body", true), invalid(field));
  }
  assert.throws(
    () => bucketConfigFromS2({ default_stream_config: null }, "body", true),
    invalid("body.default_stream_config"),
  );
  // On a create a null is an absent member.
  assert.deepEqual(streamSettingsFromS2({ timestamping: { mode: null } }, "c", false), {});
  assert.deepEqual(
    streamSettingsFromS2({ retention_policy: { age: 5, infinite: null } }, "c", false),
    { retention_max_age_ms: "5000" },
  );
});

test("what nova cannot do is refused, never dropped", () => {
  assert.throws(
    () => bucketConfigFromS2({ stream_cipher: "aegis-256" }, "config", false),
    invalid("encrypt"),
  );
  assert.throws(
    () => streamSettingsFromS2({ storage_class: null }, "body", true),
    invalid("cannot reset"),
  );
  assert.throws(
    () => streamSettingsFromS2({ retention_policy: { age: 0 } }, "c", false),
    invalid("at least 1 second"),
  );
  assert.throws(
    () => streamSettingsFromS2({ retention_policy: { age: 1, infinite: {} } }, "c", false),
    invalid("exactly one"),
  );
  assert.throws(
    () => streamSettingsFromS2({ storage_class: "cold" }, "c", false),
    invalid("standard, express"),
  );
  assert.throws(() => streamSettingsFromS2({ shards: 3 }, "c", false), invalid("shards"));
});

test("basin infos and configs from nova's buckets", () => {
  const bucket = {
    name: "my-basin-1",
    location: "",
    create_stream_on_append: false,
    create_stream_on_read: true,
    default_class: "CLASS_EXPRESS",
    default_producer_policy: "PRODUCER_POLICY_ANY",
    default_retention_max_age_ms: "0",
    default_retention_max_bytes: "0",
    default_batch_max_bytes: "0",
    default_batch_max_records: 0,
    default_batch_max_delay_ms: 0,
    default_throughput_max_bytes_per_second: "0",
    default_timestamping_mode: "TIMESTAMPING_MODE_ARRIVAL",
    default_timestamping_uncapped: false,
    default_delete_on_empty_min_age_ms: "3600000",
    creation_token: "",
    creation_digest: "",
    streams_swept: false,
    created_at_unix_ms: "0",
    deleted_at_unix_ms: "0",
  } as const;
  assert.deepEqual(bucketToBasinInfo(bucket), {
    name: "my-basin-1",
    created_at: "1970-01-01T00:00:00.000Z",
    deleted_at: null,
    location: null,
    state: "active",
  });
  const config = bucketToS2Config(bucket);
  assert.equal(config.create_stream_on_read, true);
  assert.equal(config.default_stream_config.storage_class, "express");
  assert.equal(config.default_stream_config.timestamping.mode, "arrival");
});

test("basin names: 8 to 48 of a-z, 0-9 and -, no hyphen at either end", () => {
  for (const ok of ["abcdefgh", "a-b-c-d-e", "x".repeat(48)]) {
    assert.equal(checkBasinName(ok, "basin", "invalid"), ok);
  }
  for (const bad of ["abcdefg", "x".repeat(49), "-abcdefgh", "abcdefgh-", "ABCDEFGH", 7]) {
    assert.throws(() => checkBasinName(bad, "basin", "bad_path"), /a basin name/);
  }
});

test("a basin made on S2's face waits for no batch; what S2's config gave is kept", () => {
  assert.deepEqual(basinCreationConfig({}), { default_batch_max_delay_ms: 0 });
  const given = bucketConfigFromS2(
    { default_stream_config: { storage_class: "express" }, create_stream_on_append: true },
    "config",
    false,
  );
  assert.deepEqual(basinCreationConfig(given), { ...given, default_batch_max_delay_ms: 0 });
});
