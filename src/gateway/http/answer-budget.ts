// Answers to reads that their clients have not taken yet, bounded in bytes: a page the gateway
// wrote stays in memory until its client reads it (or --send-timeout-ms cuts it), and a client
// that opens many reads on HTTP/2 streams and reads none would otherwise hold a page on each.
// Two bounds: the gateway's (--unsent-answers-mb) and one client's (--unsent-answers-client-mb;
// a client as admission names it, client-key.ts). An answer that would pass either is not sent
// but refused with a retryable 429: the read is safe to repeat once the client has read what it
// holds. An answer alone (of its client, of the gateway) always goes, whatever its size.
import { resourceExhausted } from "../errors/index.ts";

export interface AnswerLimits {
  /** Unsent answer bytes in the gateway. */
  maxBytes: number;
  /** Unsent answer bytes of one client. */
  clientMaxBytes: number;
}

export class AnswerBudget {
  readonly #limits: AnswerLimits;
  #held = 0;
  readonly #clients = new Map<string, number>();

  constructor(limits: AnswerLimits) {
    this.#limits = limits;
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

  /**
   * Holds `bytes` of an answer to `client` until the returned function is called (the answer
   * taken, or cut); throws the 429 when the answer would pass a bound.
   */
  hold(client: string, bytes: number): () => void {
    const own = this.#clients.get(client) ?? 0;
    const { maxBytes, clientMaxBytes } = this.#limits;
    if (own > 0 && own + bytes > clientMaxBytes) {
      throw resourceExhausted(
        `this client has ${own} bytes of answers it has not read yet, and this one is ${bytes} (at most ${clientMaxBytes} in all, --unsent-answers-client-mb); read them, then repeat this read`,
      );
    }
    if (this.#held > 0 && this.#held + bytes > maxBytes) {
      throw resourceExhausted(
        `the gateway holds ${this.#held} bytes of answers its clients have not read yet, and this one is ${bytes} (at most ${maxBytes}, --unsent-answers-mb); retry shortly`,
      );
    }
    this.#clients.set(client, own + bytes);
    this.#held += bytes;
    let held = true;
    return () => {
      if (!held) return;
      held = false;
      this.#held -= bytes;
      const left = (this.#clients.get(client) ?? bytes) - bytes;
      if (left > 0) this.#clients.set(client, left);
      else this.#clients.delete(client);
    };
  }
}
