// Long-lived sessions (SSE subscriptions, long-polls, NDJSON append sessions) open per client
// (http/client-key.ts), bounded by --max-sessions-per-client: one client cannot hold the
// sockets, hub places and upstream calls every other client needs. Past the bound a new session
// is a retryable 429 before anything starts; a multiplexed subscription is one session.
import { resourceExhausted } from "../errors/index.ts";

export class ClientSessions {
  readonly #max: number;
  readonly #open = new Map<string, number>();

  constructor(max: number) {
    this.#max = max;
  }

  /** Clients with a session open. */
  get clients(): number {
    return this.#open.size;
  }

  /** Sessions `client` has open. */
  count(client: string): number {
    return this.#open.get(client) ?? 0;
  }

  /** Holds one session of `client` until the returned release is called (once or more). */
  hold(client: string): () => void {
    this.acquire(client);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.release(client);
    };
  }

  /** Holds one session of `client`; the holder calls `release` once, when it ends. */
  acquire(client: string): void {
    const open = this.count(client);
    if (open >= this.#max) {
      throw resourceExhausted(
        `this client has ${open} sessions open (SSE subscriptions, long-polls, NDJSON append sessions, s2s sessions; at most ${this.#max}, --max-sessions-per-client); end one, or retry later`,
      );
    }
    this.#open.set(client, open + 1);
  }

  release(client: string): void {
    const left = this.count(client) - 1;
    if (left <= 0) this.#open.delete(client);
    else this.#open.set(client, left);
  }
}
