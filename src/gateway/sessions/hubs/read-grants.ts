// Which credentials a star let read which stream, remembered for a short while so that a burst
// of readers on one token (long-polls in a loop, EventSources reconnecting) costs one CheckTail,
// not one each; readers arriving together on one credential share the check in flight. A grant
// is only ever used for the exact credential it was made for, never past that token's expiry,
// and the map is bounded (the oldest grant goes first, expired ones as new ones come). A grant
// is kept under a digest of its credential, bucket and key: a client's credential may be up to
// the header limit, and 10,000 of those held for the grants' life would be 160 MB.
import { createHash } from "node:crypto";
import { tokenExpiresAtMs } from "./token-expiry.ts";

export const MAX_READ_GRANTS = 10_000;

export class ReadGrants {
  readonly #ttlMs: number;
  readonly #max: number;
  readonly #until = new Map<string, number>();
  readonly #asking = new Map<string, Promise<boolean>>();

  /** `ttlMs` 0 remembers nothing: every reader is checked with a star. */
  constructor(ttlMs: number, max = MAX_READ_GRANTS) {
    this.#ttlMs = ttlMs;
    this.#max = max;
  }

  get size(): number {
    return this.#until.size;
  }

  /**
   * Whether a star lets this credential read the stream: a grant (true at once), or the answer
   * of the check in flight for the same credential, or `ask` (true: yes, remembered; false: no
   * such stream).
   */
  check(
    authorization: string | undefined,
    bucket: string,
    key: string,
    ask: () => Promise<boolean>,
  ): true | Promise<boolean> {
    // One digest of the credential for the look, the check in flight and the grant.
    const id = grantId(authorization, bucket, key);
    if (this.#has(id, Date.now())) return true;
    let asking = this.#asking.get(id);
    if (!asking) {
      asking = ask()
        .then((ok) => {
          if (ok) this.#add(id, authorization, Date.now());
          return ok;
        })
        .finally(() => this.#asking.delete(id));
      this.#asking.set(id, asking);
    }
    return asking;
  }

  has(authorization: string | undefined, bucket: string, key: string, now = Date.now()): boolean {
    return this.#has(grantId(authorization, bucket, key), now);
  }

  add(authorization: string | undefined, bucket: string, key: string, now = Date.now()): void {
    this.#add(grantId(authorization, bucket, key), authorization, now);
  }

  #has(id: string, now: number): boolean {
    const until = this.#until.get(id);
    if (until === undefined) return false;
    if (now < until) return true;
    this.#until.delete(id);
    return false;
  }

  #add(id: string, authorization: string | undefined, now: number): void {
    if (this.#ttlMs <= 0) return;
    const until = Math.min(now + this.#ttlMs, tokenExpiresAtMs(authorization) ?? Infinity);
    if (until <= now) return;
    this.#until.delete(id);
    // Oldest first: expired ones go, and past the bound the oldest whatever its time.
    for (const [oldest, ends] of this.#until) {
      if (ends > now && this.#until.size < this.#max) break;
      this.#until.delete(oldest);
    }
    this.#until.set(id, until);
  }
}

const grantId = (authorization: string | undefined, bucket: string, key: string) =>
  createHash("sha256")
    .update(JSON.stringify([authorization ?? null, bucket, key]))
    .digest("base64");
