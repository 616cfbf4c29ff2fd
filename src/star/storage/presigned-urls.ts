// Presigned GET URLs for chunk objects, kept and handed out again while they have at least half
// their lifetime left: chunks never change, and signing is the dominant cost of a ReadPlan, so
// a reader that plans the same history again costs
// nothing to sign. Bounded by count; the least recently used are dropped. A URL asked for with
// a `notAfter` (the caller's token expires then) never outlives it: one signed for less than the
// full lifetime is handed to that caller only, not kept.
import type { ObjectStore } from "../../platform/objstore/index.ts";

export interface PresignedUrl {
  url: string;
  /** The URL is good until at least this time (ms since the epoch). */
  validUntil: number;
}

export class PresignedUrls {
  readonly #store: ObjectStore;
  readonly #max: number;
  readonly #urls = new Map<string, PresignedUrl>();

  constructor(store: ObjectStore, max: number) {
    this.#store = store;
    this.#max = max;
  }

  async get(
    key: string,
    ttlSeconds: number,
    now: number,
    notAfter = Number.POSITIVE_INFINITY,
  ): Promise<PresignedUrl> {
    const hit = this.#urls.get(key);
    if (hit) {
      this.#urls.delete(key);
      if (hit.validUntil - now >= (ttlSeconds * 1000) / 2) {
        this.#urls.set(key, hit);
        if (hit.validUntil <= notAfter) return hit;
      }
    }
    // Signed at `now` or later, stamped to the second: it expires by `now` plus its lifetime.
    const shortened = Math.floor((notAfter - now) / 1000);
    if (shortened < ttlSeconds) {
      const seconds = Math.max(1, shortened);
      const url = await this.#store.presignGet(key, seconds);
      return { url, validUntil: Math.floor(now / 1000) * 1000 + seconds * 1000 };
    }
    const url = await this.#store.presignGet(key, ttlSeconds);
    const fresh = { url, validUntil: Math.floor(now / 1000) * 1000 + ttlSeconds * 1000 };
    this.#urls.set(key, fresh);
    for (const oldest of this.#urls.keys()) {
      if (this.#urls.size <= this.#max) break;
      this.#urls.delete(oldest);
    }
    return fresh;
  }
}
