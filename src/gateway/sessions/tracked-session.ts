// A long-lived session while it runs (an SSE subscription, a long-poll, an s2s session): counted
// in /metrics by kind, held against its client's share (--max-sessions-per-client: a 429 before
// it starts, past the share), and drained on shutdown. One object with an `end`, which the
// session calls itself (nova's SSE) or a promise's settling calls (trackSession): a subscriber
// holds it for as long as it is connected.
import type { ClientSessions, GatewayMetrics, LiveSession, LiveSessions } from "../http/index.ts";

export interface TrackDeps {
  metrics: GatewayMetrics;
  sessions: LiveSessions;
  clientSessions: ClientSessions;
}

export class TrackedSession implements LiveSession {
  readonly #deps: TrackDeps;
  readonly #kind: string;
  readonly #client: string;
  readonly #session: { drain(): void };
  readonly #socket: { destroy(): void };
  #live = false;
  #ended = false;

  /** Holds the client's share (throws its 429 past it) and counts the session. */
  constructor(
    deps: TrackDeps,
    kind: string,
    client: string,
    session: { drain(): void },
    socket: { destroy(): void },
  ) {
    deps.clientSessions.acquire(client);
    deps.metrics.sessions.inc({ kind });
    this.#deps = deps;
    this.#kind = kind;
    this.#client = client;
    this.#session = session;
    this.#socket = socket;
  }

  /** From now on a shutdown drains it (at once if one is under way): call once it has started. */
  live(): void {
    if (this.#live || this.#ended) return;
    this.#live = true;
    this.#deps.sessions.add(this);
  }

  drain(): void {
    this.#session.drain();
  }

  /** Ends it now, by its connection. */
  destroy(): void {
    this.#socket.destroy();
  }

  /** The session ended: its count, its client's share and its tracking let go (once). */
  end(): void {
    if (this.#ended) return;
    this.#ended = true;
    const deps = this.#deps;
    deps.metrics.sessions.dec({ kind: this.#kind });
    deps.clientSessions.release(this.#client);
    if (this.#live) deps.sessions.delete(this);
  }
}

/**
 * Runs a session tracked as above until the promise `run` returns settles; then the session's
 * sources are released, also when `run` failed before the session ran (its response could not
 * start) and nothing else would.
 */
export function trackSession<T>(
  deps: TrackDeps,
  kind: string,
  client: string,
  session: { drain(): void; release?(): void },
  socket: { destroy(): void },
  run: () => Promise<T>,
): Promise<T> {
  let tracked: TrackedSession;
  try {
    tracked = new TrackedSession(deps, kind, client, session, socket);
  } catch (err) {
    return Promise.reject(err);
  }
  const done = started(run);
  tracked.live();
  const end = () => {
    session.release?.();
    tracked.end();
  };
  done.then(end, end);
  return done;
}

/** What `run` returns, or its throw as a rejection. */
function started<T>(run: () => Promise<T>): Promise<T> {
  try {
    return run();
  } catch (err) {
    return Promise.reject(err);
  }
}
