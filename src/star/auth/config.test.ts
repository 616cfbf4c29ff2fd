import assert from "node:assert/strict";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { test } from "node:test";
import { tempDir } from "../../../test/harness/tmp.ts";
import { loadAuthConfig } from "./config.ts";

const KEY = "k".repeat(32);

test("no signing key: auth is off", async () => {
  assert.equal(await loadAuthConfig({ apiKeys: [] }), undefined);
});

test("keys come from --api-keys entries and the file's lines together", async (t) => {
  const file = join(await tempDir(t), "keys");
  await writeFile(file, "# keys\nk2 s2 nova:read:bk1\n");
  const config = await loadAuthConfig({
    signingKey: KEY,
    apiKeys: ["k1 s1 nova:*:*"],
    apiKeysFile: file,
  });
  assert.deepEqual(
    config?.apiKeys.map((k) => k.id),
    ["k1", "k2"],
  );
  assert.equal(config?.signingKey, KEY);
});

test("what an operator can get wrong is refused, saying what", async (t) => {
  const file = join(await tempDir(t), "keys");
  await writeFile(file, "k1 s nova:read\n");
  const cases: [Parameters<typeof loadAuthConfig>[0], RegExp][] = [
    [{ apiKeys: ["k1 s nova:read"] }, /api keys need --signing-key/],
    [{ signingKey: "short", apiKeys: [] }, /--signing-key must be at least 32 bytes/],
    [{ signingKey: KEY, apiKeys: ["k1"] }, /--api-keys entry 1: expected KEY_ID SECRET GRANT/],
    [
      { signingKey: KEY, apiKeys: ["k1 s nova:read"], apiKeysFile: file },
      /k1 is given more than once/,
    ],
    [
      { signingKey: KEY, apiKeys: [], apiKeysFile: `${file}.missing` },
      /^Error: --api-keys-file .*\.missing: ENOENT/,
    ],
  ];
  for (const [flags, message] of cases) await assert.rejects(loadAuthConfig(flags), message);
});
