// The star's auth flags as an AuthConfig: `--signing-key` turns auth on, api keys come from
// `--api-keys` entries and the lines of `--api-keys-file` (docs/auth.md).
import { readFile } from "node:fs/promises";
import { type ApiKey, indexApiKeys, parseApiKey, parseApiKeysFile } from "./api-keys.ts";
import { MIN_HS256_KEY_BYTES } from "./jwt.ts";
import type { AuthConfig } from "./star-auth.ts";

export interface AuthFlags {
  signingKey?: string | undefined;
  apiKeys: readonly string[];
  apiKeysFile?: string | undefined;
}

/** The config, or undefined when auth is off; throws an Error fit for the operator. */
export async function loadAuthConfig(flags: AuthFlags): Promise<AuthConfig | undefined> {
  const apiKeys: ApiKey[] = flags.apiKeys.map((entry, i) =>
    parseApiKey(entry, `--api-keys entry ${i + 1}`),
  );
  if (flags.apiKeysFile !== undefined) {
    const file = flags.apiKeysFile;
    const text = await readFile(file, "utf8").catch((err: Error) => {
      throw new Error(`--api-keys-file ${file}: ${err.message}`);
    });
    apiKeys.push(...parseApiKeysFile(text, file));
  }
  if (flags.signingKey === undefined) {
    if (apiKeys.length > 0) throw new Error("api keys need --signing-key (auth is off without it)");
    return undefined;
  }
  if (Buffer.byteLength(flags.signingKey, "utf8") < MIN_HS256_KEY_BYTES) {
    throw new Error(`--signing-key must be at least ${MIN_HS256_KEY_BYTES} bytes (HS256)`);
  }
  indexApiKeys(apiKeys);
  return { signingKey: flags.signingKey, apiKeys };
}
