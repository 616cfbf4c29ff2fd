// Admission control for appends: the bytes of append bodies in flight are bounded, counted as
// they arrive rather than as declared, so an upload that declared 64 MiB and then stalled holds
// only what it sent. Three bounds:
// - the gateway's budget (--inflight-append-mb);
// - bodies that are not small (declared over SMALL_BODY_BYTES, or of unknown length) may not use
//   the budget's last eighth (at most 32 MiB): one-record appends always find room beside a flood
//   of large ones;
// - one client (its credential, else its address) holds at most --inflight-append-client-mb
//   across its bodies.
// Something alone in flight (in the gateway, or of its client) is always admitted, so a body
// larger than a bound still goes through. Past a bound a body is a retryable 429 at once.
// An append session (NDJSON, s2s) holds one ticket for its life: each line or input is taken as
// it comes and given back once answered, so its client's bound counts it; its lines are small
// appends, which the reserve is kept for.
import { resourceExhausted } from "../errors/index.ts";

export const SMALL_BODY_BYTES = 1024 * 1024;
/**
 * The memory an append body holds, over its size, while it is in flight: the body as it arrives
 * and joined, the parsed JSON, the decoded records, and the gRPC message. The budgets
 * (--inflight-append-mb) are memory; bodies are admitted by their size, against a quarter of
 * them. Measured with `npm run bench:flood` (docs/operating.md).
 */
export const APPEND_MEMORY_FACTOR = 4;
const MAX_RESERVE_BYTES = 32 * 1024 * 1024;

/** What one parsed JSON value holds on the heap, about: 43 bytes measured for `[]` in records. */
export const JSON_VALUE_BYTES = 48;

/**
 * Charges a body's ticket for its JSON parse past what its size already counts: a body of tiny
 * values (`[],` is three bytes, 43 parsed) holds far more than APPEND_MEMORY_FACTOR times its
 * size. Called as the parse goes (with the values made so far), it throws the budget's 429 once
 * the parse would pass the client's share or the gateway's.
 */
export function chargeParse(ticket: BodyTicket, bodyBytes: number): (values: number) => void {
  let counted = bodyBytes * APPEND_MEMORY_FACTOR;
  return (values) => {
    const memory = values * JSON_VALUE_BYTES;
    if (memory <= counted) return;
    // Tickets take bytes of body, each standing for APPEND_MEMORY_FACTOR of memory.
    ticket.take(Math.ceil((memory - counted) / APPEND_MEMORY_FACTOR));
    counted = memory;
  };
}

export interface AdmissionLimits {
  /** Append bytes in flight in the gateway. */
  maxBytes: number;
  /** Append bytes in flight of one client. */
  clientMaxBytes: number;
}

interface Client {
  held: number;
  bodies: number;
}

/** One append body being read: its bytes are taken as they arrive, and given back at its end. */
export interface BodyTicket {
  take(bytes: number): void;
  /** Gives back bytes taken (a session's line, answered) before the end. */
  give(bytes: number): void;
  release(): void;
}

export class AppendAdmission {
  readonly #max: number;
  readonly #clientMax: number;
  readonly #reserve: number;
  #inflight = 0;
  #large = 0;
  readonly #clients = new Map<string, Client>();

  constructor(limits: AdmissionLimits | number) {
    const l = typeof limits === "number" ? { maxBytes: limits, clientMaxBytes: limits } : limits;
    this.#max = l.maxBytes;
    this.#clientMax = l.clientMaxBytes;
    this.#reserve = Math.min(MAX_RESERVE_BYTES, Math.floor(l.maxBytes / 8));
  }

  get inflight(): number {
    return this.#inflight;
  }

  /** Clients with a body being read. */
  get clients(): number {
    return this.#clients.size;
  }

  /** An append session's lines from `client`, each taken as it comes (see above). */
  session(client: string): BodyTicket {
    return this.body(client, 0);
  }

  /** A body about to be read, from `client`, of `declared` bytes (undefined: unknown). */
  body(client: string, declared: number | undefined): BodyTicket {
    const large = declared === undefined || declared > SMALL_BODY_BYTES;
    const owner = this.#clients.get(client) ?? { held: 0, bodies: 0 };
    owner.bodies++;
    this.#clients.set(client, owner);
    let held = 0;
    let released = false;
    const give = (bytes: number) => {
      if (released) return;
      held -= bytes;
      owner.held -= bytes;
      this.#inflight -= bytes;
      if (large) this.#large -= bytes;
    };
    return {
      take: (bytes) => {
        if (released) return;
        const alone = this.#inflight === held;
        if (!alone && this.#inflight + bytes > this.#max) throw this.#full();
        if (!alone && large && this.#large + bytes > this.#max - this.#reserve) throw this.#full();
        if (owner.held !== held && owner.held + bytes > this.#clientMax) {
          throw resourceExhausted(
            `this client has ${owner.held} bytes of append bodies in flight (at most ${this.#clientMax}, a quarter of --inflight-append-client-mb); retry once they are done`,
          );
        }
        held += bytes;
        owner.held += bytes;
        this.#inflight += bytes;
        if (large) this.#large += bytes;
      },
      give,
      release: () => {
        if (released) return;
        give(held);
        released = true;
        if (--owner.bodies === 0) this.#clients.delete(client);
      },
    };
  }

  #full() {
    return resourceExhausted(
      `the gateway has ${this.#inflight} bytes of append bodies in flight (at most ${this.#max}, a quarter of --inflight-append-mb); retry shortly`,
    );
  }
}
