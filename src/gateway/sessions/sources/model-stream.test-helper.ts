// Test support: one stream as a star would serve it to a gateway, in memory. Its Subscribe
// (`feed`) yields the records batch by batch as they were appended, marks catching up with an
// empty batch, then waits for appends; CheckTail answers per credential. Credentials can be
// refused (expired) at any moment, which ends the feeds running on them.
import { status } from "@grpc/grpc-js";
import type { Record__Output } from "../../../gen/nova/v1/Record.ts";
import type { Upstream } from "../../upstream/index.ts";
import { StarCallError } from "../../upstream/index.ts";
import type { BatchSource, Cursor, SourceBatch } from "./source.ts";

export class ModelStream {
  readonly records: Record__Output[] = [];
  /** Where each appended batch starts, for frames cut as the star cuts them. */
  readonly #starts: number[] = [];
  readonly #refused = new Set<string | undefined>();
  /** How often the feeds open on each credential were cut (endFeeds). */
  readonly #cuts = new Map<string | undefined, number>();
  #waiters = new Set<() => void>();
  #gone = false;
  /** Subscribe calls opened in all, and open now. */
  opened = 0;
  open = 0;
  checks = 0;

  append(count: number): void {
    this.#starts.push(this.records.length);
    for (let i = 0; i < count; i++) {
      const seq = this.records.length;
      this.records.push({
        seq_num: String(seq),
        timestamp_ms: String(1000 + seq),
        headers: [],
        body: Buffer.from(`record ${seq}`),
      });
    }
    this.#wake();
  }

  /** The star stops taking this credential; feeds on it end with UNAUTHENTICATED. */
  refuse(authorization: string | undefined): void {
    this.#refused.add(authorization);
    this.#wake();
  }

  /**
   * The feeds open on this credential end with UNAUTHENTICATED, as a star that refused them for
   * a moment (a restart); new feeds and CheckTail on it are served.
   */
  endFeeds(authorization: string | undefined): void {
    this.#cuts.set(authorization, (this.#cuts.get(authorization) ?? 0) + 1);
    this.#wake();
  }

  /** The stream is deleted: feeds end with NOT_FOUND. */
  delete(): void {
    this.#gone = true;
    this.#wake();
  }

  get tail() {
    return { seq_num: String(this.records.length), timestamp_ms: "0" };
  }

  /** The star's Subscribe on one credential. */
  feed(authorization?: string): BatchSource {
    return (cursor, signal) => this.#subscribe(cursor, signal, authorization);
  }

  /** An upstream that answers CheckTail as the star would; nothing else. */
  upstream(): Upstream {
    return {
      unary: async (method: string, _req: unknown, opts: { authorization?: string }) => {
        this.checks++;
        if (method !== "CheckTail") throw new Error(`unexpected ${method}`);
        this.#check(opts.authorization, "CheckTail");
        return { tail: this.tail };
      },
    } as unknown as Upstream;
  }

  #check(authorization: string | undefined, method: string): void {
    if (this.#gone) {
      throw new StarCallError({ code: status.NOT_FOUND, details: "no such stream" }, { method });
    }
    if (this.#refused.has(authorization)) {
      throw new StarCallError({ code: status.UNAUTHENTICATED, details: "expired" }, { method });
    }
  }

  async *#subscribe(
    cursor: Cursor,
    signal: AbortSignal,
    authorization: string | undefined,
  ): AsyncGenerator<SourceBatch> {
    this.#check(authorization, "Subscribe");
    const cuts = this.#cuts.get(authorization) ?? 0;
    this.opened++;
    this.open++;
    try {
      let seq = this.#start(cursor);
      let caughtUp = false;
      for (;;) {
        signal.throwIfAborted();
        this.#check(authorization, "Subscribe");
        if ((this.#cuts.get(authorization) ?? 0) !== cuts) {
          throw new StarCallError(
            { code: status.UNAUTHENTICATED, details: "cut" },
            {
              method: "Subscribe",
            },
          );
        }
        if (seq < this.records.length) {
          const end = this.#starts.find((s) => s > seq) ?? this.records.length;
          const records = this.records.slice(seq, end);
          seq = end;
          caughtUp = false;
          yield { records, tail: this.tail };
          continue;
        }
        if (!caughtUp) {
          caughtUp = true;
          yield { records: [], tail: this.tail };
          continue;
        }
        await this.#changed(signal);
      }
    } finally {
      this.open--;
    }
  }

  #start(cursor: Cursor): number {
    const s = cursor.start;
    // As the star: with clamp, a start past the tail reads from the tail.
    if ("seq_num" in s) {
      return cursor.clamp ? Math.min(Number(s.seq_num), this.records.length) : Number(s.seq_num);
    }
    if ("tail_offset" in s) return Math.max(0, this.records.length - Number(s.tail_offset));
    if ("timestamp_ms" in s)
      return Math.max(0, Math.min(this.records.length, Number(s.timestamp_ms) - 1000));
    return this.records.length;
  }

  #changed(signal: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        this.#waiters.delete(done);
        signal.removeEventListener("abort", done);
        resolve();
      };
      this.#waiters.add(done);
      signal.addEventListener("abort", done, { once: true });
    });
  }

  #wake(): void {
    const waiters = this.#waiters;
    this.#waiters = new Set();
    for (const w of waiters) w();
  }
}
