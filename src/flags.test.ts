import assert from "node:assert/strict";
import { test } from "node:test";
import { flags } from "./flags.ts";
import { KEEP_ALIVE_TIMEOUT_MS } from "./gateway/settings.ts";

test("the keep-alive hint stays below the idle time the gateway keeps a connection", () => {
  const most = KEEP_ALIVE_TIMEOUT_MS / 1000 - 1;
  assert.equal(flags.parse([`--keep-alive-hint-s=${most}`], {}).keepAliveHintS, most);
  assert.throws(
    () => flags.parse([`--keep-alive-hint-s=${most + 1}`], {}),
    new RegExp(`--keep-alive-hint-s: expected an integer from 1 to ${most}`),
  );
});

test("every time in ms a gateway flag takes is one a timer can wait; a cache age any", () => {
  assert.throws(() => flags.parse(["--drain-delay-ms=2147483648"], {}), /to 2147483647/);
  const year = 365 * 24 * 3600;
  assert.equal(flags.parse([`--cache-max-age-s=${year}`], {}).cacheMaxAgeS, year);
});
