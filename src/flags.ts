// The gateway's flags (`npm start`, src/main.ts), with their environment variables and
// defaults; docs/configuration.md is generated from them (`npm run config-docs`).
import {
  DEFAULT_BODY_LIMIT,
  DEFAULT_BODY_TIMEOUTS,
  DEFAULT_COMPRESS_MIN_BYTES,
  DEFAULT_DRAIN_DELAY_MS,
  DEFAULT_DRAIN_GRACE_MS,
  DEFAULT_H2_MAX_STREAMS,
  DEFAULT_HEADERS_TIMEOUT_MS,
  DEFAULT_HUB_LINGER_MS,
  DEFAULT_HUB_RING,
  DEFAULT_MAX_CONNECTIONS,
  DEFAULT_MAX_WAIT_S,
  DEFAULT_NDJSON_SESSION_BYTES,
  DEFAULT_READ_GRANT_MS,
  DEFAULT_READPLAN_SETTINGS,
  DEFAULT_SLOW_CONSUMER_MS,
  DEFAULT_SSE_MAX_STREAMS,
  DEFAULT_SSE_PING_MS,
} from "./gateway/index.ts";
import { defineFlags } from "./platform/cli/index.ts";

export const PROGRAM = "nova-gateway";
export const SUMMARY = "The nova HTTP/JSON gateway.";

export const flags = defineFlags({
  host: { type: "string", default: "127.0.0.1", help: "address to listen on" },
  port: {
    type: "int",
    default: 8080,
    min: 0,
    max: 65535,
    help: "port to listen on (0 picks a free one)",
  },
  "tls-cert": {
    type: "string",
    help: "PEM certificate chain file: serve TLS, ALPN offering h2 and http/1.1 (with --tls-key); unset: cleartext HTTP/1.1 and h2c on one port",
  },
  "tls-key": { type: "string", help: "PEM private key file of --tls-cert" },
  "h2-max-streams": {
    type: "int",
    default: DEFAULT_H2_MAX_STREAMS,
    min: 1,
    help: "concurrent streams of one HTTP/2 connection (each SSE subscription and request is one)",
  },
  "data-dir": {
    type: "string",
    default: "./.nova-data",
    help: "embedded star's object storage (ignored with --stars)",
  },
  stars: {
    type: "list",
    default: [],
    help: "external star fleet HOST:PORT,... (nothing embedded starts)",
  },
  "body-limit-mb": {
    type: "int",
    default: DEFAULT_BODY_LIMIT >> 20,
    min: 1,
    help: "largest JSON request body, MiB",
  },
  "inflight-append-mb": {
    type: "int",
    default: 512,
    min: 1,
    help: "memory append bodies in flight may hold before 429, MiB; a body counts 4 times its size (body, parsed JSON, decoded records, gRPC message)",
  },
  "inflight-append-client-mb": {
    type: "int",
    default: 256,
    min: 1,
    help: "the same, for one client (its credential, else its address), MiB",
  },
  "gc-slack-mb": {
    type: "int",
    default: 64,
    min: 0,
    help: "JS heap and buffer memory that may pile up past its level after the last full garbage collection before the gateway asks V8 for one, MiB (0: leave it to V8)",
  },
  "body-idle-ms": {
    type: "int",
    default: DEFAULT_BODY_TIMEOUTS.idleMs,
    min: 1,
    help: "a request body that sends no byte for this long is cut with 408, ms (NDJSON sessions are not bound by it)",
  },
  "body-timeout-ms": {
    type: "int",
    default: DEFAULT_BODY_TIMEOUTS.totalMs,
    min: 1,
    help: "a request body that has not all arrived after this long is cut with 408, ms (NDJSON sessions are not bound by it)",
  },
  "max-connections": {
    type: "int",
    default: DEFAULT_MAX_CONNECTIONS,
    min: 1,
    help: "client connections at once (SSE subscribers included); the one past it gets 503 unavailable and is closed. Keep it below the process's open-file limit (ulimit -n) by about 1000",
  },
  "headers-timeout-ms": {
    type: "int",
    default: DEFAULT_HEADERS_TIMEOUT_MS,
    min: 1,
    help: "a connection whose request headers have not all arrived after this long gets 408 and is closed (slow-header attacks), ms",
  },
  "slow-consumer-ms": {
    type: "int",
    default: DEFAULT_SLOW_CONSUMER_MS,
    min: 1,
    help: "an SSE client whose socket does not drain for this long gets slow_consumer, ms",
  },
  "sse-max-streams": {
    type: "int",
    default: DEFAULT_SSE_MAX_STREAMS,
    min: 1,
    help: "the most streams one multiplexed SSE subscription (GET /v1/subscribe) may follow; more is 400 bad_query",
  },
  "ndjson-session-mb": {
    type: "int",
    default: DEFAULT_NDJSON_SESSION_BYTES / 1024 / 1024,
    min: 1,
    help: "bytes one NDJSON append session may send in all, MiB (a line: --body-limit-mb)",
  },
  "drain-delay-ms": {
    type: "int",
    default: DEFAULT_DRAIN_DELAY_MS,
    min: 0,
    help: "on SIGTERM, how long /readyz fails while the gateway still serves everything, so a load balancer takes it out first, ms (SIGINT skips it)",
  },
  "drain-grace-ms": {
    type: "int",
    default: DEFAULT_DRAIN_GRACE_MS,
    min: 0,
    help: "after the drain delay, how long requests and NDJSON sessions in flight get to finish before their connections are cut, ms",
  },
  "max-wait-s": {
    type: "int",
    default: DEFAULT_MAX_WAIT_S,
    min: 1,
    max: 60,
    help: "the longest a long-poll (wait=) waits before its empty 200; keep it below the load balancer's idle timeout, s",
  },
  "sse-ping-ms": {
    type: "int",
    default: DEFAULT_SSE_PING_MS,
    min: 100,
    help: "the longest an SSE subscriber goes without a byte (an idle ping); keep it well below the load balancer's idle timeout, ms",
  },
  "subscribe-sharing": {
    type: "bool",
    default: true,
    help: "readers of a stream (SSE, long-poll) share one upstream Subscribe through a hub per stream; --subscribe-sharing=off gives each its own",
  },
  "hub-ring-mb": {
    type: "int",
    default: DEFAULT_HUB_RING.maxBytes >> 20,
    min: 1,
    help: "memory a hub keeps for readers that lag or join behind the tail: recent records and the SSE events made of them, MiB per stream followed (past it a reader catches up on its own)",
  },
  "hub-linger-ms": {
    type: "int",
    default: DEFAULT_HUB_LINGER_MS,
    min: 0,
    help: "how long a hub and its upstream Subscribe outlive the stream's last reader, ms",
  },
  "read-grant-ms": {
    type: "int",
    default: DEFAULT_READ_GRANT_MS,
    min: 0,
    help: "with shared subscriptions, how long a star's yes to one credential reading one stream is remembered (never past the token's expiry), so readers on one token cost one check; 0 checks every reader, ms",
  },
  compression: {
    type: "bool",
    default: true,
    help: "compress JSON responses (pages, lists) by the client's Accept-Encoding: zstd, br or gzip; --compression=off sends them as they are (SSE and NDJSON are never compressed)",
  },
  "compress-min-bytes": {
    type: "int",
    default: DEFAULT_COMPRESS_MIN_BYTES,
    min: 0,
    help: "responses smaller than this are sent uncompressed, bytes",
  },
  "cors-origins": { type: "list", default: [], help: "origins allowed by CORS (none: CORS off)" },
  readplan: {
    type: "bool",
    default: true,
    help: "read settled history (reads from a seq_num or timestamp, SSE catch-up) straight from object storage through ReadPlan; --readplan=off sends every read through the stars",
  },
  "readplan-cache-mb": {
    type: "int",
    default: DEFAULT_READPLAN_SETTINGS.cacheBytes >> 20,
    min: 0,
    help: "verified chunks kept for later readers, MiB",
  },
  "readplan-prefetch": {
    type: "int",
    default: DEFAULT_READPLAN_SETTINGS.prefetch,
    min: 0,
    help: "chunks fetched ahead of each SSE catch-up, and of a client paging through history",
  },
  "readplan-connections": {
    type: "int",
    default: DEFAULT_READPLAN_SETTINGS.connections,
    min: 1,
    help: "connections per object-storage origin",
  },
  "readplan-timeout-ms": {
    type: "int",
    default: DEFAULT_READPLAN_SETTINGS.timeoutMs,
    min: 1,
    help: "a chunk fetch's connect, header and idle-body timeout, ms (then the star serves it)",
  },
  "s3-endpoint": {
    type: "string",
    help: "S3 endpoint for ReadPlan entries naming {bucket, key} (stars with --readplan-urls object); unset: the embedded store's, or none with --stars",
  },
  "s3-region": { type: "string", default: "us-east-1", help: "S3 region (with --s3-endpoint)" },
  "s3-access-key-id": {
    type: "string",
    default: "S3RVER",
    help: "S3 access key id (with --s3-endpoint)",
  },
  "s3-secret-access-key": {
    type: "string",
    default: "S3RVER",
    help: "S3 secret (with --s3-endpoint; prefer the environment variable)",
  },
  "log-level": { type: "string", default: "info", help: "pino log level" },
});
