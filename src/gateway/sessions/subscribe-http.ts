// The HTTP side of reading from a subscription: an SSE response (GET .../records with
// Accept: text/event-stream, or several streams multiplexed on GET /v1/subscribe) and a
// long-poll read (`wait`), all over the fleet source.
import type { FastifyReply } from "fastify";
import { PAGE_MAX_BYTES, PAGE_MAX_RECORDS } from "../../contract/wire-limits.ts";
import type { HistorySource } from "../history/index.ts";
import type { ClientSessions, GatewayMetrics, LiveSessions } from "../http/index.ts";
import { chunkWriter, clientKey, releaseClientAbort, takeOverConnection } from "../http/index.ts";
import {
  DEFAULT_FANOUT_SLICE,
  DEFAULT_HUB_LINGER_MS,
  DEFAULT_HUB_RING,
  DEFAULT_HUB_RINGS_BYTES,
  DEFAULT_READ_GRANT_MS,
} from "../settings.ts";
import type {
  EventId,
  Int64Mode,
  ReadQuery,
  RecordFormat,
  StreamPosition,
  StreamSpec,
} from "../translate/index.ts";
import type { CallOptions, Upstream } from "../upstream/index.ts";
import type { HubEvents, RingLimits } from "./hubs/index.ts";
import {
  HubRegistry,
  type ReadGrants,
  type SharedSourceDeps,
  type SharedStream,
  sharedSource,
} from "./hubs/index.ts";
import { longPoll } from "./long-poll.ts";
import type { BatchSource, SourceBatch } from "./sources/index.ts";
import { fleetSource, withCatchUp } from "./sources/index.ts";
import type { Bounds } from "./sse/index.ts";
import { multiplexed, SseSession, type SseStream, type SseTiming } from "./sse/index.ts";
import { TrackedSession, trackSession } from "./tracked-session.ts";

export interface SubscribeDeps {
  upstream: Upstream;
  metrics: GatewayMetrics;
  sessions: LiveSessions;
  /** Sessions open per client, bounded. */
  clientSessions: ClientSessions;
  /** An SSE client whose socket does not drain for this long gets slow_consumer. */
  slowConsumerMs: number;
  /** How long re-subscribing may go on without a frame before the session fails. */
  failoverMs: number;
  /** The longest a long-poll waits: its empty answer comes before a balancer's idle timeout. */
  maxWaitS: number;
  sseTiming: SseTiming;
  /** SSE catch-up from object storage before Subscribe takes over; absent: Subscribe only. */
  history?: HistorySource | undefined;
  /** Shared subscriptions: one hub per stream; absent: every reader has its own Subscribe. */
  hubs?: HubRegistry | undefined;
  /** Reads stars granted lately, per credential (with hubs). */
  grants?: ReadGrants | undefined;
}

/** A read request as the route parsed it. */
export interface ReadParts {
  bucket: string;
  key: string;
  call: CallOptions;
  query: ReadQuery;
  format: RecordFormat;
  int64: Int64Mode;
}

export const SSE_HEADERS = {
  "content-type": "text/event-stream",
  // no-transform: proxies must not compress or rewrite an event stream.
  "cache-control": "no-cache, no-transform",
  // nginx would buffer the stream otherwise.
  "x-accel-buffering": "no",
};

/** Serves an SSE subscription; errors before the first byte are thrown as HTTP errors. */
export function serveSse(
  parts: ReadParts,
  resume: EventId | undefined,
  reply: FastifyReply,
  deps: SubscribeDeps,
): Promise<FastifyReply | undefined> {
  const { query } = parts;
  const session = new SseSession({
    ...sessionOptions(parts, query.wait, deps),
    source: subscriptionSource(parts, deps),
    cursor: { start: query.start, clamp: query.clamp },
    bounds: bounds(query),
    ...(resume ? { resume } : {}),
  });
  return runSse(session, reply, deps);
}

/** A multiplexed subscription as the route parsed it. */
export interface MultiplexParts {
  streams: StreamSpec[];
  call: CallOptions;
  format: RecordFormat;
  int64: Int64Mode;
  /** Seconds every stream must be caught up with no new record before the session ends. */
  wait: number;
}

/** Serves several streams on one SSE response, each read as its own subscription would be. */
export function serveMultiplexedSse(
  parts: MultiplexParts,
  resume: StreamPosition[] | undefined,
  reply: FastifyReply,
  deps: SubscribeDeps,
): Promise<FastifyReply | undefined> {
  const streams = parts.streams.map((spec, i): SseStream => {
    const { query } = spec;
    const read: ReadParts = { ...parts, bucket: spec.bucket, key: spec.key, query };
    const at = resume?.[i];
    return {
      source: subscriptionSource(read, deps),
      cursor: { start: query.start, clamp: query.clamp },
      bounds: bounds(query),
      ...(at ? { resume: at } : {}),
    };
  });
  const session = new SseSession({
    ...sessionOptions(parts, parts.wait, deps),
    streams,
    form: multiplexed(parts.streams.map((s) => s.name)),
  });
  return runSse(session, reply, deps);
}

function sessionOptions(
  parts: Pick<ReadParts, "call" | "format" | "int64">,
  wait: number,
  deps: SubscribeDeps,
) {
  return {
    waitMs: wait > 0 ? wait * 1000 : undefined,
    format: parts.format,
    int64: parts.int64,
    slowConsumerMs: deps.slowConsumerMs,
    signal: parts.call.signal ?? new AbortController().signal,
    timing: deps.sseTiming,
    onSlowConsumer: counted(deps.metrics).slowConsumer,
  };
}

/**
 * Starts the session; the route is done once it streams (or failed before), and the session
 * ends its own tracking when it ends: a subscriber holds no promise chain of the route's. A
 * session with nothing to send is a 204, the reply the route returns (Fastify takes an async
 * route that sent its reply and returned nothing for one that forgot to return it: a 500 logged).
 */
function runSse(
  session: SseSession,
  reply: FastifyReply,
  deps: SubscribeDeps,
): Promise<FastifyReply | undefined> {
  let tracked: TrackedSession;
  try {
    tracked = new TrackedSession(
      deps,
      "sse",
      clientKey(reply.request),
      session,
      reply.request.raw.socket,
    );
  } catch (err) {
    return Promise.reject(err);
  }
  const starting = session.start();
  tracked.live();
  return starting.then(
    (started) => {
      if (started === "met") {
        tracked.end();
        return reply.code(204).send();
      }
      try {
        // The session's first events are ready: the head goes out with them.
        const res = takeOverConnection(reply, 200, SSE_HEADERS, false);
        // The response's close stops the session from now on (SseSession.stream).
        releaseClientAbort(res);
        session.stream(chunkWriter(res), tracked);
      } catch (err) {
        // The response never started: nothing will read the sources the session opened.
        session.release();
        tracked.end();
        throw err;
      }
    },
    (err: unknown) => {
      tracked.end();
      throw err;
    },
  );
}

/** Serves a read with `wait`: the first records within the read's bounds, or none at the wait. */
export async function serveLongPoll(
  parts: ReadParts,
  deps: SubscribeDeps,
  client: string,
): Promise<SourceBatch> {
  const { query } = parts;
  const drain = new AbortController();
  const destroy = new AbortController();
  const signal = parts.call.signal
    ? AbortSignal.any([parts.call.signal, destroy.signal])
    : destroy.signal;
  return trackSession(
    deps,
    "long_poll",
    client,
    { drain: () => drain.abort() },
    { destroy: () => destroy.abort() },
    () =>
      longPoll({
        source: deps.hubs ? shared(parts, deps, "live") : source(parts, deps),
        cursor: { start: query.start, clamp: query.clamp },
        // One page at most, as a unary read.
        bounds: {
          ...bounds(query),
          count: atMost(query.count, PAGE_MAX_RECORDS),
          bytes: atMost(query.bytes, PAGE_MAX_BYTES),
        },
        waitMs: Math.min(query.wait, deps.maxWaitS) * 1000,
        signal,
        drain: drain.signal,
      }),
  );
}

/**
 * What a subscription reads, as nova's SSE sessions read it: settled history from object storage
 * first (when on), then the fleet's Subscribe, through the stream's hub when they are shared.
 */
export function subscriptionSource(
  parts: Pick<ReadParts, "bucket" | "key" | "call">,
  deps: SubscribeDeps,
): BatchSource {
  return deps.hubs ? shared(parts, deps, "history") : ownSource(parts, deps);
}

/** A reader's own subscription: history (when on), then the fleet's Subscribe. */
function ownSource(
  parts: Pick<ReadParts, "bucket" | "key" | "call">,
  deps: SubscribeDeps,
): BatchSource {
  const live = source(parts, deps);
  return deps.history
    ? withCatchUp(deps.history, live, { ...parts, authorization: parts.call.authorization })
    : live;
}

function source(
  parts: Pick<ReadParts, "bucket" | "key" | "call">,
  deps: SubscribeDeps,
): BatchSource {
  return fleetSubscribe(deps, parts.bucket, parts.key, parts.call.authorization);
}

/** The fleet's Subscribe with failover for one stream and credential, counted in /metrics. */
function fleetSubscribe(
  deps: Pick<SubscribeDeps, "upstream" | "metrics" | "failoverMs">,
  bucket: string,
  key: string,
  authorization: string | undefined,
): BatchSource {
  return fleetSource({
    upstream: deps.upstream,
    bucket,
    key,
    authorization,
    failoverMs: deps.failoverMs,
    calls: counted(deps.metrics).calls,
  });
}

/**
 * The metrics callbacks of sources and sessions, made once per gateway: every subscriber keeps
 * them for as long as it is connected, and 10,000 copies of the same closures are memory for
 * nothing.
 */
function counted(m: GatewayMetrics): CountedCallbacks {
  let callbacks = countedCallbacks.get(m);
  if (!callbacks) {
    const gauge = m.upstreamSubscribes;
    callbacks = {
      calls: { opened: () => gauge.inc(), closed: () => gauge.dec() },
      slowConsumer: () => m.slowConsumers.inc({ kind: "sse" }),
      events: {
        joined: (hit: boolean) => m.hubJoins.inc({ result: hit ? "hit" : "miss" }),
        detached: () => m.hubDetaches.inc(),
        attached: (delta: 1 | -1) => m.hubSubscribers.inc(delta),
      },
    };
    countedCallbacks.set(m, callbacks);
  }
  return callbacks;
}

interface CountedCallbacks {
  calls: { opened(): void; closed(): void };
  slowConsumer(): void;
  events: HubEvents;
}

const countedCallbacks = new WeakMap<GatewayMetrics, CountedCallbacks>();

export interface HubSettings {
  ring: RingLimits;
  /** The most every hub's window may hold together. */
  totalBytes: number;
  /** How long a hub outlives its last subscriber. */
  lingerMs: number;
  /** Readers a hub's fan-out serves before it yields to the event loop. */
  fanoutSlice: number;
  /** How long a star's yes to one credential reading one stream is remembered; 0: not at all. */
  readGrantMs: number;
}

export const DEFAULT_HUB_SETTINGS: HubSettings = {
  ring: DEFAULT_HUB_RING,
  totalBytes: DEFAULT_HUB_RINGS_BYTES,
  lingerMs: DEFAULT_HUB_LINGER_MS,
  fanoutSlice: DEFAULT_FANOUT_SLICE,
  readGrantMs: DEFAULT_READ_GRANT_MS,
};

/** The gateway's hubs, each fed by the fleet's Subscribe with failover on one credential. */
export function createHubs(
  deps: Pick<SubscribeDeps, "upstream" | "metrics" | "failoverMs">,
  settings: HubSettings,
): HubRegistry {
  return new HubRegistry({
    ring: settings.ring,
    totalBytes: settings.totalBytes,
    lingerMs: settings.lingerMs,
    fanoutSlice: settings.fanoutSlice,
    onCount: (n) => deps.metrics.hubs.set(n),
    feed: (bucket, key) => (cursor, signal, authorization) =>
      fleetSubscribe(deps, bucket, key, authorization)(cursor, signal),
  });
}

/**
 * The reader's source through its stream's hub (subscriptions are shared): what it catches up on
 * by its own is the fleet's Subscribe ("live"), or history first ("history"). It keeps the
 * stream and credential, not the request's parts.
 */
function shared(
  parts: Pick<ReadParts, "bucket" | "key" | "call">,
  deps: SubscribeDeps,
  own: OwnKind,
): BatchSource {
  const { bucket, key, call } = parts;
  return sharedSource(sharedDeps(deps, own), { bucket, key, authorization: call.authorization });
}

type OwnKind = "live" | "history";

/** What shared sources read through, made once per gateway and kind (see `counted`). */
function sharedDeps(deps: SubscribeDeps, own: OwnKind): SharedSourceDeps {
  let kinds = sharedDepsOf.get(deps);
  if (!kinds) {
    kinds = new Map();
    sharedDepsOf.set(deps, kinds);
  }
  let made = kinds.get(own);
  if (!made) {
    // A reader's own source is made only if it has to catch up: most follow their hub.
    const open = own === "history" ? ownSource : source;
    made = {
      registry: deps.hubs as HubRegistry,
      upstream: deps.upstream,
      own: (stream, cursor, signal) => open(partsOf(stream), deps)(cursor, signal),
      grants: deps.grants,
      events: counted(deps.metrics).events,
    };
    kinds.set(own, made);
  }
  return made;
}

const sharedDepsOf = new WeakMap<SubscribeDeps, Map<OwnKind, SharedSourceDeps>>();

function partsOf(stream: SharedStream): Pick<ReadParts, "bucket" | "key" | "call"> {
  return { bucket: stream.bucket, key: stream.key, call: { authorization: stream.authorization } };
}

function bounds(query: ReadQuery): Bounds {
  if (query.count === undefined && query.bytes === undefined && query.until_ms === undefined) {
    return NO_BOUNDS;
  }
  const b: Bounds = {};
  if (query.count !== undefined) b.count = query.count;
  if (query.bytes !== undefined) b.bytes = query.bytes;
  if (query.until_ms !== undefined) b.untilMs = BigInt(query.until_ms);
  return b;
}

/** Most subscriptions have no bounds: they share this, kept for as long as they are connected. */
const NO_BOUNDS: Bounds = Object.freeze({});

function atMost(value: bigint | undefined, max: number): bigint {
  const cap = BigInt(max);
  return value === undefined || value > cap ? cap : value;
}
