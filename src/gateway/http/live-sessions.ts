// The long-lived responses in flight (SSE subscriptions, NDJSON append sessions), so a gateway
// that shuts down can drain them: each is asked to end cleanly, and whatever has not ended when
// the grace period is over has its socket destroyed, so closing the server never hangs.

export interface LiveSession {
  /** Ends the session cleanly, soon (a final `retry:`, or the end line after in-flight acks). */
  drain(): void;
  /** Ends it now. */
  destroy(): void;
}

/** A session that ends now by destroying its connection: one object, not two closures. */
export class ConnectionSession implements LiveSession {
  readonly #session: { drain(): void };
  readonly #socket: { destroy(): void };

  constructor(session: { drain(): void }, socket: { destroy(): void }) {
    this.#session = session;
    this.#socket = socket;
  }

  drain(): void {
    this.#session.drain();
  }

  destroy(): void {
    this.#socket.destroy();
  }
}

export class LiveSessions {
  readonly #live = new Set<LiveSession>();
  #draining = false;
  /** Called once the last session ended, while drainAll waits. */
  #onEmpty: (() => void) | undefined;

  get size(): number {
    return this.#live.size;
  }

  get draining(): boolean {
    return this.#draining;
  }

  /**
   * Tracks a session until `done` settles; one that starts while draining is drained at once.
   * One reaction per session: a subscriber holds it for as long as it is connected.
   */
  track(session: LiveSession, done: Promise<unknown>): void {
    this.add(session);
    const ended = () => this.delete(session);
    done.then(ended, ended);
  }

  /** Tracks a session until `delete`; one that starts while draining is drained at once. */
  add(session: LiveSession): void {
    this.#live.add(session);
    if (this.#draining) session.drain();
  }

  delete(session: LiveSession): void {
    this.#live.delete(session);
    if (this.#live.size === 0) this.#onEmpty?.();
  }

  /** Drains every session and waits for them to end, destroying what is left after graceMs. */
  async drainAll(graceMs: number): Promise<void> {
    this.#draining = true;
    for (const session of this.#live) session.drain();
    if (this.#live.size > 0) {
      let timer: NodeJS.Timeout | undefined;
      await new Promise<void>((resolve) => {
        this.#onEmpty = resolve;
        timer = setTimeout(resolve, graceMs);
      });
      clearTimeout(timer);
      this.#onEmpty = undefined;
    }
    for (const session of this.#live) session.destroy();
  }
}
