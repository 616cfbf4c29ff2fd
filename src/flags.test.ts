import assert from "node:assert/strict";
import { test } from "node:test";
import { flags } from "./flags.ts";

test("the keep-alive timeout defaults above the hint, and is at least a second", () => {
  const parsed = flags.parse([], {});
  assert.ok(parsed.keepAliveHintS * 1000 < parsed.keepAliveTimeoutMs);
  assert.throws(() => flags.parse(["--keep-alive-timeout-ms=999"], {}), /from 1000/);
});

test("every time in ms a gateway flag takes is one a timer can wait; a cache age any", () => {
  assert.throws(() => flags.parse(["--drain-delay-ms=2147483648"], {}), /to 2147483647/);
  const year = 365 * 24 * 3600;
  assert.equal(flags.parse([`--cache-max-age-s=${year}`], {}).cacheMaxAgeS, year);
});
