// Answers to reads that their clients have not taken yet, bounded in bytes: a page the gateway
// wrote stays in memory until its client reads it (or --send-timeout-ms cuts it), and a client
// that opens many reads on HTTP/2 streams and reads none would otherwise hold a page on each.
// Two bounds: the gateway's (--unsent-answers-mb) and one client's (--unsent-answers-client-mb;
// a client as admission names it, client-key.ts). An answer that would pass either is not sent
// but refused with a retryable 429: the read is safe to repeat once the client has read what it
// holds. A client that already holds its share is refused before its read is carried out.
// - An answer alone (of its client, of the gateway) always goes, whatever its size.
// - The gateway's last eighth (at most 32 MiB) is kept for clients that hold nothing: a few
//   clients that read none of their answers cannot shut every other reader out.
// - An answer counts at least ANSWER_FLOOR_BYTES: many small answers left unread hold their
//   streams' and responses' memory too.
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
    this.#check(this.#clients.get(client) ?? 0, ANSWER_FLOOR_BYTES);
  }

  /**
   * Holds an answer of `bytes` to `client` until the returned function is called (the answer
   * taken, or cut); throws the 429 when it would pass a bound.
   */
  hold(client: string, bytes: number): () => void {
    const own = this.#clients.get(client) ?? 0;
    const counted = Math.max(bytes, ANSWER_FLOOR_BYTES);
    this.#check(own, counted);
    this.#clients.set(client, own + counted);
    this.#held += counted;
    let held = true;
    return () => {
      if (!held) return;
      held = false;
      this.#held -= counted;
      const left = (this.#clients.get(client) ?? counted) - counted;
      if (left > 0) this.#clients.set(client, left);
      else this.#clients.delete(client);
    };
  }

  #check(own: number, bytes: number): void {
    const { maxBytes, clientMaxBytes } = this.#limits;
    if (own > 0 && own + bytes > clientMaxBytes) {
      throw resourceExhausted(
        `this client has ${own} bytes of answers it has not read yet (at most ${clientMaxBytes}, --unsent-answers-client-mb); read them, then repeat this read`,
      );
    }
    const limit = own > 0 ? maxBytes - this.#reserve : maxBytes;
    if (this.#held > 0 && this.#held + bytes > limit) {
      throw resourceExhausted(
        `the gateway holds ${this.#held} bytes of answers its clients have not read yet (at most ${maxBytes}, --unsent-answers-mb); retry shortly`,
      );
    }
  }
}
