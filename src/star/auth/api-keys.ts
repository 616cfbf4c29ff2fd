// Api keys, as `--api-keys` entries or `--api-keys-file` lines (docs/auth.md):
//
//   KEY_ID SECRET GRANT [GRANT ...]
//
// fields separated by spaces or tabs; in a file, blank lines and lines starting with "#" are
// skipped. The grants, in the nova: grammar, are the most any token exchanged for the key may do.
import { formatScope, parseScope, type Scope, ScopeError } from "./scope.ts";

export interface ApiKey {
  readonly id: string;
  readonly secret: string;
  readonly scope: Scope;
}

const KEY_ID = /^[A-Za-z0-9._-]{1,64}$/;

export class ApiKeyError extends Error {
  override readonly name = "ApiKeyError";
}

/** One entry; `where` names it in errors (never with its secret). */
export function parseApiKey(entry: string, where: string): ApiKey {
  const [id = "", secret = "", ...grants] = entry.trim().split(/[ \t]+/);
  if (!KEY_ID.test(id)) {
    throw new ApiKeyError(`${where}: the key id is 1 to 64 of A-Z a-z 0-9 . _ -`);
  }
  if (secret === "" || grants.length === 0) {
    throw new ApiKeyError(`${where}: expected KEY_ID SECRET GRANT [GRANT ...]`);
  }
  // A field after the secret that is no grant may be the rest of a secret with a blank in it:
  // the error names its position, never its text.
  const stray = grants.findIndex((grant) => !grant.startsWith("nova:"));
  if (stray >= 0) {
    throw new ApiKeyError(
      `${where} (key ${id}): field ${stray + 3} is not a grant (nova:ACTION[:RESOURCE]); a secret holds no spaces or tabs`,
    );
  }
  try {
    return { id, secret, scope: parseScope(grants.join(" ")) };
  } catch (err) {
    if (err instanceof ScopeError) throw new ApiKeyError(`${where} (key ${id}): ${err.message}`);
    throw err;
  }
}

export function formatApiKey(key: ApiKey): string {
  return `${key.id} ${key.secret} ${formatScope(key.scope)}`;
}

/** An api-keys file's text: one key a line, blank lines and "#" comments skipped. */
export function parseApiKeysFile(text: string, file: string): ApiKey[] {
  const keys: ApiKey[] = [];
  for (const [i, line] of text.split(/\r?\n/).entries()) {
    const trimmed = line.trim();
    if (trimmed === "" || trimmed.startsWith("#")) continue;
    keys.push(parseApiKey(trimmed, `${file}:${i + 1}`));
  }
  return keys;
}

/** Keys by id; an id given twice is refused. */
export function indexApiKeys(keys: readonly ApiKey[]): Map<string, ApiKey> {
  const byId = new Map<string, ApiKey>();
  for (const key of keys) {
    if (byId.has(key.id)) throw new ApiKeyError(`api key ${key.id} is given more than once`);
    byId.set(key.id, key);
  }
  return byId;
}
