// The gateway's settings that its flags (src/flags.ts) name: defaults and choices, as values
// only. The flags and their --help load this alone, not the gateway (about 1 s of CPU), so a
// bad flag or --help answers at once; the modules that use a setting import it from here.

/** The header the trusted balancers write the client's address in. */
export type ForwardedHeader = "x-forwarded-for" | "forwarded";
export const FORWARDED_HEADERS: readonly ForwardedHeader[] = ["x-forwarded-for", "forwarded"];

// Calls to the stars

/** A unary call to the stars, every redirect and failover included. */
export const DEFAULT_CALL_DEADLINE_MS = 30_000;
/** An Append: it may wait for a group commit and a stream's throughput cap. */
export const DEFAULT_APPEND_DEADLINE_MS = 60_000;
/**
 * How long a subscription goes on re-subscribing (another star, a restarted one) with no frame
 * before it ends its readers with a retryable error.
 */
export const DEFAULT_FAILOVER_MS = 30_000;
/** A health check (/readyz): a balancer's probe must not hang on a star that hangs. */
export const DEFAULT_HEALTH_DEADLINE_MS = 2_000;
/**
 * Pings on each connection to a star (--star-keepalive-ms, --star-keepalive-timeout-ms); the
 * stars ping each other as often (NOVA_CHANNEL_OPTIONS).
 */
export const DEFAULT_STAR_KEEPALIVE = { timeMs: 30_000, timeoutMs: 10_000 };

// The HTTP server and its connections

/**
 * Browsers open an EventSource per stream, each an HTTP/2 stream; nginx allows 128, Go 250.
 * Node's own default is unbounded.
 */
export const DEFAULT_H2_MAX_STREAMS = 100;
export const DEFAULT_MAX_CONNECTIONS = 20_000;
/**
 * Headers take a legitimate client milliseconds; Node's own bound (60 s, checked every 30 s) let
 * slow-header connections live for up to 90 s each (docs/operating.md).
 */
export const DEFAULT_HEADERS_TIMEOUT_MS = 10_000;
/**
 * Below the idle timeout balancers hold client connections for (HAProxy passes the header on):
 * Node's own default, and above undici's 4 s.
 */
export const DEFAULT_KEEP_ALIVE_HINT_S = 5;
/** Longer than a balancer's own keep-alive timeout, so the balancer closes idle connections first. */
export const DEFAULT_KEEP_ALIVE_TIMEOUT_MS = 72_000;
/** 100 MiB of content in base64 (4/3) plus JSON framing. */
export const DEFAULT_BODY_LIMIT = 150 * 1024 * 1024;
export const DEFAULT_BODY_TIMEOUTS = { idleMs: 10_000, totalMs: 60_000 };
/** How long a unary answer may take to reach its client (nginx's send_timeout is 60 s). */
export const DEFAULT_SEND_TIMEOUT_MS = 60_000;
/**
 * Answers to reads not yet taken, in bytes (http/answer-budget.ts): a page is at most about
 * 1 MiB of records, written as up to 6 MB of JSON; one client may leave about thirty full pages
 * unread (each counted as its 2 MiB pooled buffer).
 */
export const DEFAULT_UNSENT_ANSWERS = {
  maxBytes: 256 * 1024 * 1024,
  clientMaxBytes: 64 * 1024 * 1024,
};
/** Below this a body gains too little to be worth a compressor's CPU and its latency. */
export const DEFAULT_COMPRESS_MIN_BYTES = 1024;
/** How long caches may keep a settled page; 0 makes every page `no-store`. */
export const DEFAULT_CACHE_MAX_AGE_S = 60;
/**
 * Longer than typical health checks take to mark a server down (HAProxy's defaults, `inter 2s`
 * and `fall 3`, take up to 6 s; Kubernetes takes an endpoint out within a few seconds).
 */
export const DEFAULT_DRAIN_DELAY_MS = 10_000;
export const DEFAULT_DRAIN_GRACE_MS = 10_000;
export const DEFAULT_MAX_SESSIONS_PER_CLIENT = 1000;

// Reads, subscriptions and sessions

/**
 * Below the idle timeouts balancers commonly use (30 s and more; nginx's proxy_read_timeout is
 * 60 s): a long-poll's empty 200 comes before the balancer's own 504.
 */
export const DEFAULT_MAX_WAIT_S = 25;
/**
 * The longest a subscriber waits without a byte: under the idle timeouts balancers and proxies
 * use (30 s to 60 s; nginx proxy_read_timeout 60 s, HAProxy setups often 30 s), with room for a
 * ping to be late on a loaded machine, and rarely enough that idle pings cost next to nothing.
 */
export const DEFAULT_SSE_PING_MS = 15_000;
export const DEFAULT_SLOW_CONSUMER_MS = 30_000;
/**
 * An NDJSON append session that sends no line with nothing in flight holds a star's session slot
 * for nothing: it ends at about the idle timeout balancers use anyway.
 */
export const DEFAULT_SESSION_IDLE_MS = 60_000;
/**
 * The most streams on one multiplexed SSE response: past a dashboard's needs, and its resume id
 * (at most 62 bytes a stream, on every event) stays far below header limits.
 */
export const DEFAULT_SSE_MAX_STREAMS = 64;
export const DEFAULT_NDJSON_SESSION_BYTES = 4 * 1024 ** 3;
export const DEFAULT_HUB_RING = {
  maxBatches: 4096,
  maxBytes: 4 * 1024 * 1024,
  maxAgeMs: 60_000,
};
/** Every hub's window together: 128 streams' windows full. */
export const DEFAULT_HUB_RINGS_BYTES = 512 * 1024 * 1024;
export const DEFAULT_HUB_LINGER_MS = 5_000;
/**
 * Readers a fan-out serves before it yields to the event loop: 128 kept appends within 2x of
 * their idle latency at 10,000 subscribers on 100 streams where 256 did not (docs/subscriptions.md).
 */
export const DEFAULT_FANOUT_SLICE = 128;
export const DEFAULT_READ_GRANT_MS = 10_000;
export const DEFAULT_READPLAN_SETTINGS = {
  cacheBytes: 256 * 1024 * 1024,
  loadingBytes: 128 * 1024 * 1024,
  prefetch: 4,
  connections: 16,
  timeoutMs: 10_000,
  planLimit: 64,
};
export const DEFAULT_DS_SETTINGS = {
  bucket: "durable-streams",
  longPollMs: 20_000,
  sseCloseS: 60,
};
