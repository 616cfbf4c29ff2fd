import assert from "node:assert/strict";
import { test } from "node:test";
import { flags } from "./flags.ts";

test("ages compared with clocks take any length; a timer's delay is bounded by what it waits", () => {
  const month = 30 * 24 * 3600 * 1000;
  const parsed = flags.parse(
    [
      `--producer-ttl-ms=${month}`,
      `--descriptor-ttl-ms=${month}`,
      `--stream-idle-close-ms=${month}`,
    ],
    {},
  );
  assert.deepEqual(
    [parsed.producerTtlMs, parsed.descriptorTtlMs, parsed.streamIdleCloseMs],
    [month, month, month],
  );
  assert.throws(() => flags.parse([`--lease-ms=${month}`], {}), /--lease-ms: expected/);
});
