// One grpc-js channel per star address and lane, created on first use and shared by the calls of
// that lane (HTTP/2 multiplexes them). Subscriptions have their own lane, on their own
// connection: an SSE client that goes away cancels its Subscribe (an RST_STREAM), and a star's
// HTTP/2 server ends a connection with GOAWAY INTERNAL_ERROR once a client resets streams faster
// than its rapid-reset limit (nghttp2: a burst of 1000, then 33 a second), failing every call on
// it. Mass disconnects then cost subscriptions a re-subscribe, never an append. Large appends
// have a lane of their own too: HTTP/2 flow control is per connection as well as per stream, so
// on a shared connection a small call's frames wait behind megabytes of other calls' bodies
// (measured: 3 to 11 s under a flood of 8 MiB appends, docs/operating.md). Bounded:
// redirects can name any number of addresses over time, so past the bound the least recently
// used channel without calls in flight is closed.
//
// The calls and bulk lanes also keep a bare HTTP/2 session each to the star for unary calls
// (h2-unary.ts), on connections of their own as their channels are: grpc-js costs its caller
// more per call than the rest of a small request, and about a seventh of a 100-record append's.
// A session is opened with its lane's first call and used once connected; until then, and once
// it is going away, unary calls take the channel. Streaming calls always take the channel.
import http2 from "node:http2";
import * as grpc from "@grpc/grpc-js";
import { NOVA_CHANNEL_OPTIONS } from "../../contract/proto/index.ts";
import { DEFAULT_STAR_KEEPALIVE } from "../settings.ts";
import { FleetError } from "./errors.ts";

export const DEFAULT_MAX_CHANNELS = 256;

export const CHANNEL_OPTIONS: grpc.ChannelOptions = {
  ...NOVA_CHANNEL_OPTIONS,
  // A channel in TRANSIENT_FAILURE fails calls at once until its next connection attempt; the
  // default backoff grows to 120 s, far too long to notice a restarted star.
  "grpc.max_reconnect_backoff_ms": 5_000,
};

/** Subscribe calls, large appends, or every other call. */
export type Lane = "calls" | "subscriptions" | "bulk";

/** The use of one star's channel by one call; release it when the call has ended. */
export interface Lease {
  readonly address: string;
  /** A generic client: any service's methods go through makeUnaryRequest and friends. */
  readonly client: grpc.Client;
  /** The lane's bare HTTP/2 session for unary calls, when connected (not for subscriptions). */
  bare(): http2.ClientHttp2Session | undefined;
  release(): void;
}

interface Entry {
  readonly client: grpc.Client;
  readonly bare: BareSession | undefined;
  inFlight: number;
}

/**
 * Pings on a star's connections: one not answered within `timeoutMs` ends the connection and
 * fails its calls (retryable), so a star that stopped answering (frozen, cut off) is noticed
 * within about their sum, on an idle connection too, not at each call's deadline.
 */
export interface Keepalive {
  timeMs: number;
  timeoutMs: number;
}

/** One star's bare HTTP/2 session, opened again on the next call after it ends or goes away. */
class BareSession {
  readonly #address: string;
  readonly #keepalive: Keepalive;
  #session: http2.ClientHttp2Session | undefined;
  #closed = false;

  constructor(address: string, keepalive: Keepalive) {
    this.#address = address;
    this.#keepalive = keepalive;
  }

  /** The session when connected; otherwise undefined, and a connection attempt under way. */
  connected(): http2.ClientHttp2Session | undefined {
    const session = this.#session;
    // A session ending before its events say so is not handed out: a call on it would fail as
    // never sent, and the call's route would count that against the star.
    if (session && !session.connecting && !session.closed && !session.destroyed) return session;
    if (!session && !this.#closed) this.#open();
    return undefined;
  }

  close(): void {
    this.#closed = true;
    this.#session?.close();
    this.#session = undefined;
  }

  #open(): void {
    // As grpc-js opens its sessions: Node's default cap on a session's memory (10 MiB) refuses
    // new streams while calls carry more than that; the gateway's append budget bounds it.
    const session = http2.connect(`http://${this.#address}`, {
      maxSessionMemory: Number.MAX_SAFE_INTEGER,
      maxSendHeaderBlockLength: Number.MAX_SAFE_INTEGER,
    });
    this.#session = session;
    const forget = () => {
      if (this.#session === session) this.#session = undefined;
    };
    // Calls in flight see the end on their streams; new ones take the channel meanwhile.
    session.on("error", forget);
    session.on("goaway", forget);
    session.on("close", () => {
      forget();
      clearInterval(keepalive);
    });
    const keepalive = setInterval(() => {
      if (session.closed || session.destroyed) return;
      const timeout = setTimeout(() => session.destroy(), this.#keepalive.timeoutMs);
      timeout.unref();
      const pinged = session.ping((err) => {
        clearTimeout(timeout);
        if (err) session.destroy();
      });
      if (!pinged) clearTimeout(timeout);
    }, this.#keepalive.timeMs);
    keepalive.unref();
    session.unref();
  }
}

export class ChannelPool {
  readonly #max: number;
  readonly #keepalive: Keepalive;
  readonly #options: grpc.ChannelOptions;
  /** Map iteration order is the recency order (least recently used first). */
  readonly #entries = new Map<string, Entry>();
  /** The last key of #entries: calls to one star in a row need not reorder the map. */
  #newest: string | undefined;
  #closed = false;

  constructor(
    options: {
      maxChannels?: number;
      keepalive?: Keepalive;
      channelOptions?: grpc.ChannelOptions;
    } = {},
  ) {
    const max = options.maxChannels ?? DEFAULT_MAX_CHANNELS;
    if (!(max >= 1)) throw new RangeError(`maxChannels must be at least 1, got ${max}`);
    this.#max = max;
    this.#keepalive = options.keepalive ?? DEFAULT_STAR_KEEPALIVE;
    this.#options = {
      ...CHANNEL_OPTIONS,
      "grpc.keepalive_time_ms": this.#keepalive.timeMs,
      "grpc.keepalive_timeout_ms": this.#keepalive.timeoutMs,
      ...options.channelOptions,
    };
  }

  /** Open channels, busy or idle. */
  get size(): number {
    return this.#entries.size;
  }

  acquire(address: string, lane: Lane = "calls"): Lease {
    if (this.#closed) throw new FleetError("closed", "the fleet client is closed");
    const key = lane === "calls" ? address : `${address} ${lane}`;
    let entry = this.#entries.get(key);
    if (!entry) {
      // grpc-js shares one connection among channels to the same target with the same
      // options; a local subchannel pool gives the subscription lane a connection of its own.
      const options =
        lane === "calls"
          ? this.#options
          : { ...this.#options, "grpc.use_local_subchannel_pool": 1 };
      entry = {
        client: new grpc.Client(address, grpc.credentials.createInsecure(), options),
        bare: lane === "subscriptions" ? undefined : new BareSession(address, this.#keepalive),
        inFlight: 0,
      };
      this.#entries.set(key, entry);
    } else if (key !== this.#newest) {
      this.#entries.delete(key);
      this.#entries.set(key, entry);
    }
    this.#newest = key;
    entry.inFlight++;
    this.#evict();
    let released = false;
    const held = entry;
    return {
      address,
      client: entry.client,
      bare: () => held.bare?.connected(),
      release: () => {
        if (released) return;
        released = true;
        held.inFlight--;
        this.#evict();
      },
    };
  }

  /** Closes every channel; calls still in flight on them fail. */
  close(): void {
    this.#closed = true;
    for (const entry of this.#entries.values()) {
      entry.client.close();
      entry.bare?.close();
    }
    this.#entries.clear();
  }

  #evict(): void {
    if (this.#entries.size <= this.#max) return;
    for (const [key, entry] of this.#entries) {
      if (this.#entries.size <= this.#max) return;
      if (entry.inFlight > 0) continue;
      this.#entries.delete(key);
      entry.client.close();
      entry.bare?.close();
    }
  }
}
