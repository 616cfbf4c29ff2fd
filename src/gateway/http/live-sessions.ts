// The long-lived responses in flight (SSE subscriptions, NDJSON append sessions), so a gateway
// that shuts down can drain them: each is asked to end cleanly, and whatever has not ended when
// the grace period is over has its socket destroyed, so closing the server never hangs.

export interface LiveSession {
  /** Ends the session cleanly, soon (a final `retry:`, or the end line after in-flight acks). */
  drain(): void;
  /** Ends it now. */
  destroy(): void;
}

export class LiveSessions {
  readonly #live = new Map<LiveSession, Promise<void>>();
  #draining = false;

  get size(): number {
    return this.#live.size;
  }

  get draining(): boolean {
    return this.#draining;
  }

  /** Tracks a session until `done` settles; one that starts while draining is drained at once. */
  track(session: LiveSession, done: Promise<unknown>): void {
    const settled = done.then(
      () => undefined,
      () => undefined,
    );
    this.#live.set(session, settled);
    void settled.then(() => this.#live.delete(session));
    if (this.#draining) session.drain();
  }

  /** Drains every session and waits for them to end, destroying what is left after graceMs. */
  async drainAll(graceMs: number): Promise<void> {
    this.#draining = true;
    for (const session of this.#live.keys()) session.drain();
    let timer: NodeJS.Timeout | undefined;
    const grace = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, graceMs);
    });
    await Promise.race([Promise.all(this.#live.values()), grace]);
    clearTimeout(timer);
    for (const session of this.#live.keys()) session.destroy();
  }
}
