// Presigned GET URLs for chunk objects, kept and handed out again while they have at least half
// their lifetime left: chunks never change, and signing is the dominant cost of a ReadPlan, so
// a reader that plans the same history again costs
// nothing to sign. Bounded by count; the least recently used are dropped.
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

  async get(key: string, ttlSeconds: number, now: number): Promise<PresignedUrl> {
    const hit = this.#urls.get(key);
    if (hit) {
      this.#urls.delete(key);
      if (hit.validUntil - now >= (ttlSeconds * 1000) / 2) {
        this.#urls.set(key, hit);
        return hit;
      }
    }
    const url = await this.#store.presignGet(key, ttlSeconds);
    // Signed at `now` or later, stamped to the second: good until at least this.
    const fresh = { url, validUntil: Math.floor(now / 1000) * 1000 + ttlSeconds * 1000 };
    this.#urls.set(key, fresh);
    for (const oldest of this.#urls.keys()) {
      if (this.#urls.size <= this.#max) break;
      this.#urls.delete(oldest);
    }
    return fresh;
  }
}
