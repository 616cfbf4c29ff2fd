// Answers to reads that their clients have not taken yet, bounded in bytes: a page the gateway
// wrote stays in memory until its client reads it (or --send-timeout-ms cuts it), and a client
// that opens many reads on HTTP/2 streams and reads none would otherwise hold a page on each.
// A read counts from when its page is in hand (the records as the star sent them, and the answer
// rendered from them: twice the page's content, PAGE_MEMORY_FACTOR), then as its answer once
// written: a client's reads in flight count before their answers exist. Two bounds: the gateway's (--unsent-answers-mb) and one client's (--unsent-answers-client-mb;
// a client as admission names it, client-key.ts). An answer that would pass either is not sent
// but refused with a retryable 429: the read is safe to repeat once the client has read what it
// holds. A client that already holds its share is refused before its read is carried out.
// - An answer alone (of its client, of the gateway) always goes, whatever its size.
// - The gateway's last eighth (at most 32 MiB) is kept for clients that hold nothing: a few
//   clients that read none of their answers cannot shut every other reader out.
// - An answer counts at least ANSWER_FLOOR_BYTES: many small answers left unread hold their
//   streams' and responses' memory too.
import { contentBytes, type StoredRecord } from "../../contract/codec/index.ts";
import { resourceExhausted } from "../errors/index.ts";

export interface AnswerLimits {
  /** Unsent answer bytes in the gateway. */
  maxBytes: number;
  /** Unsent answer bytes of one client. */
  clientMaxBytes: number;
}

/** The least an answer counts for. */
export const ANSWER_FLOOR_BYTES = 16 * 1024;
const MAX_RESERVE_BYTES = 32 * 1024 * 1024;
/** A page in hand is in memory twice: as its records, and as the answer written from them. */
export const PAGE_MEMORY_FACTOR = 2;

/** The memory a page of `records` holds until its answer is written. */
export function pageMemoryBytes(records: readonly StoredRecord[]): number {
  let bytes = 0;
  for (const r of records) bytes += contentBytes(r);
  return PAGE_MEMORY_FACTOR * bytes;
}

/** One read's share of the budget. */
export interface AnswerClaim {
  /** Counts `bytes` (at least the floor) from now on; throws the 429 when growing passes a bound. */
  set(bytes: number): void;
  release(): void;
}

export class AnswerBudget {
  readonly #limits: AnswerLimits;
  readonly #reserve: number;
  #held = 0;
  readonly #clients = new Map<string, number>();

  constructor(limits: AnswerLimits) {
    this.#limits = limits;
    this.#reserve = Math.min(MAX_RESERVE_BYTES, Math.floor(limits.maxBytes / 8));
  }

  /** Bytes of answers written and not yet taken. */
  get held(): number {
    return this.#held;
  }

  get boundBytes(): number {
    return this.#limits.maxBytes;
  }

  /** Clients with an answer not yet taken. */
  get clients(): number {
    return this.#clients.size;
  }

  /** Throws the 429 when even the smallest answer to `client` would pass a bound. */
  admit(client: string): void {
    this.#check(this.#clients.get(client) ?? 0, this.#held, ANSWER_FLOOR_BYTES);
  }

  /**
   * What one read of `client` holds, from when its page is in hand until its answer is taken or
   * cut: nothing at first; `set` sizes it, `release` ends it (after which `set` does nothing).
   */
  claim(client: string): AnswerClaim {
    let counted = 0;
    let released = false;
    const count = (delta: number) => {
      counted += delta;
      this.#held += delta;
      const own = (this.#clients.get(client) ?? 0) + delta;
      if (own > 0) this.#clients.set(client, own);
      else this.#clients.delete(client);
    };
    return {
      set: (bytes) => {
        if (released) return;
        const target = Math.max(bytes, ANSWER_FLOOR_BYTES);
        // Growing is checked against what the others hold: a claim alone always grows.
        if (target > counted) {
          this.#check((this.#clients.get(client) ?? 0) - counted, this.#held - counted, target);
        }
        count(target - counted);
      },
      release: () => {
        if (released) return;
        released = true;
        count(-counted);
      },
    };
  }

  /** `own` and `held`: what the client and the gateway hold besides the answer of `bytes`. */
  #check(own: number, held: number, bytes: number): void {
    const { maxBytes, clientMaxBytes } = this.#limits;
    if (own > 0 && own + bytes > clientMaxBytes) {
      throw resourceExhausted(
        `this client has ${own} bytes of pages and answers it has not taken yet (at most ${clientMaxBytes}, --unsent-answers-client-mb); read them, then repeat this read`,
      );
    }
    const limit = own > 0 ? maxBytes - this.#reserve : maxBytes;
    if (held > 0 && held + bytes > limit) {
      throw resourceExhausted(
        `the gateway holds ${held} bytes of pages and answers its clients have not taken yet (at most ${maxBytes}, --unsent-answers-mb); retry shortly`,
      );
    }
  }
}
