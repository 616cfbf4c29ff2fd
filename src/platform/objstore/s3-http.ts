// S3's REST API over Node's HTTP client: a request signed (sigv4.ts), sent on a kept-alive
// connection, its answer read whole, retried when S3 says it may be. What the AWS SDK did for the
// store, at about a third of its CPU per request and without its ~0.2 s load at a process's first
// request (docs/benchmarks.md, "The S3 client").
import type { IncomingHttpHeaders } from "node:http";
import { setTimeout as sleep } from "node:timers/promises";
import { type S3Endpoint, targetOf } from "./s3-url.ts";
import { parseErrorBody } from "./s3-xml.ts";
import {
  amzDateOf,
  authorization,
  canonicalQuery,
  createSigner,
  type SigningSettings,
  sha256Hex,
} from "./sigv4.ts";

// Not ESM imports, whose face of node:http loads Node's bundled undici (docs/development.md).
const http = process.getBuiltinModule("node:http");
const https = process.getBuiltinModule("node:https");

export interface S3HttpOptions extends SigningSettings {
  endpoint: S3Endpoint;
  /** Bounds connecting, waiting for the response headers, and each idle gap in a body. */
  timeoutMs: number;
  /** Connections kept per host. */
  maxSockets: number;
  /** Attempts per request, retries included. */
  maxAttempts: number;
}

export interface S3Request {
  method: "GET" | "HEAD" | "PUT" | "POST" | "DELETE";
  /**
   * The answer is an XML document of S3's (a listing, a multi-delete's result): one whose root
   * is `<Error>` is an error even under 200, as S3 may send it once the status is out.
   */
  xml?: boolean;
  bucket: string;
  key?: string;
  query?: readonly (readonly [string, string])[];
  /** Names in lower case. */
  headers?: Readonly<Record<string, string>>;
  body?: Uint8Array;
  /** Aborts the request (a reader that went away): no answer, and no retry. */
  signal?: AbortSignal;
}

export interface S3Response {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/** An answer outside 2xx: S3's error code (or the status's name when there is no body). */
export class S3ResponseError extends Error {
  override readonly name = "S3ResponseError";
  readonly code: string;
  readonly status: number;
  /**
   * An earlier attempt of the same request failed without a clear answer (a lost connection, a
   * timeout, a 5xx): it may have been carried out, so a refused condition may be its own doing.
   */
  afterLostAttempt = false;
  /** The store's Retry-After, when it sent one. */
  retryAfterMs: number | undefined;
  constructor(code: string, status: number, message: string) {
    super(message);
    this.code = code;
    this.status = status;
  }
}

/** A request that never completed: a network error, or the timeout. */
export class S3TransportError extends Error {
  override readonly name = "S3TransportError";
  readonly code: string;
  /**
   * It failed on a connection that was made (not refused, unresolved or still connecting), so
   * the store may have received the request and carried it out.
   */
  readonly connected: boolean;
  constructor(code: string, message: string, connected: boolean) {
    super(message);
    this.code = code;
    this.connected = connected;
  }
}

const STATUS_CODES: Record<number, string> = {
  400: "BadRequest",
  403: "Forbidden",
  404: "NotFound",
  412: "PreconditionFailed",
  500: "InternalError",
  503: "ServiceUnavailable",
};

/** Connections lost or never made: the request may be tried again. */
const TRANSIENT_TRANSPORT = new Set([
  "TimeoutError",
  "ECONNRESET",
  "ECONNREFUSED",
  "ECONNABORTED",
  "EPIPE",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "EAI_AGAIN",
]);
const THROTTLING_CODES = new Set(["SlowDown", "Throttling", "ThrottlingException"]);
/** What the SDK's standard retry strategy retries besides throttling: transient 5xx and codes. */
const TRANSIENT_STATUS = new Set([500, 502, 503, 504]);
/** Answers after which the request may still have been carried out. */
const AMBIGUOUS_STATUS = new Set([500, 502, 504]);
const TRANSIENT_CODES = new Set(["RequestTimeout", "RequestTimeTooSkewed", "InternalError"]);

const throttled = (err: unknown): boolean =>
  err instanceof S3ResponseError && (err.status === 429 || THROTTLING_CODES.has(err.code));
const retryable = (err: unknown): boolean =>
  (err instanceof S3TransportError && TRANSIENT_TRANSPORT.has(err.code)) ||
  throttled(err) ||
  (err instanceof S3ResponseError &&
    (TRANSIENT_STATUS.has(err.status) || TRANSIENT_CODES.has(err.code)));

/**
 * The SDK's backoff: full jitter on a base doubled per retry (100 ms, throttling 1 s), at most
 * 20 s; a Retry-After the store sent is waited for at least.
 */
function backoffMs(err: unknown, retry: number): number {
  const base = throttled(err) ? 1_000 : 100;
  const jittered = Math.random() * Math.min(20_000, base * 2 ** retry);
  const asked = err instanceof S3ResponseError ? err.retryAfterMs : undefined;
  return asked === undefined ? jittered : Math.min(20_000, Math.max(jittered, asked));
}

/** A clock this far from the store's is corrected by the store's `Date` (S3 allows 15 min). */
const SKEW_MS = 5 * 60_000;

const EMPTY = new Uint8Array(0);
const EMPTY_HASH = sha256Hex(EMPTY);

export interface S3Http {
  send(req: S3Request): Promise<S3Response>;
  /** The store's time as its answers showed it: what requests and presigned URLs are dated. */
  now(): Date;
  /** Closes the connections; a request waiting to be retried ends with its last error. */
  destroy(): void;
}

/**
 * `<Error>` as a document's root: S3's error answer. S3 may send whitespace for a long while
 * before it (to keep a slow operation's connection alive), so that is skipped first.
 */
const ERROR_ROOT = /^(<\?xml[^>]*\?>\s*)?<Error[\s>]/;
const XML_SPACE = new Set([0x20, 0x09, 0x0a, 0x0d]);

function hasErrorRoot(bytes: Buffer): boolean {
  let start = 0;
  while (start < bytes.length && XML_SPACE.has(bytes[start] as number)) start++;
  return ERROR_ROOT.test(bytes.subarray(start, start + 256).toString("latin1"));
}

/** What is kept of an error answer's body: S3's documents are small, a proxy's page may not be. */
const MAX_ERROR_BODY = 64 * 1024;

/** Retry-After in milliseconds from now: delay-seconds or an HTTP date (RFC 9110, 10.2.3). */
function retryAfterMs(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const seconds = Number(value);
  if (value.trim() !== "" && Number.isFinite(seconds))
    return seconds >= 0 ? seconds * 1000 : undefined;
  const at = Date.parse(value);
  return Number.isFinite(at) ? Math.max(0, at - Date.now()) : undefined;
}

function responseError(status: number, headers: IncomingHttpHeaders, body: Buffer, reason: string) {
  const parsed = parseErrorBody(body.toString("utf8"));
  const code = parsed.code ?? STATUS_CODES[status] ?? `HTTP${status}`;
  const err = new S3ResponseError(code, status, parsed.message ?? reason);
  err.retryAfterMs = retryAfterMs(headers["retry-after"]);
  return err;
}

/** How long an idle kept-alive connection is kept: Node's global agent's, under servers' 5 s. */
const IDLE_SOCKET_MS = 5_000;

export function createS3Http(opts: S3HttpOptions): S3Http {
  const signer = createSigner(opts);
  const tls = opts.endpoint.protocol === "https:";
  const transport = tls ? https : http;
  // A server's Keep-Alive hint shortens the idle time further (Node's agent reads it).
  const agent = new transport.Agent({
    keepAlive: true,
    maxSockets: opts.maxSockets,
    timeout: IDLE_SOCKET_MS,
  });
  /** Ends the backoff of requests waiting to be retried when the client is destroyed. */
  const destroyed = new AbortController();
  /** The store's clock minus ours, once they were found to differ by more than SKEW_MS. */
  let clockOffsetMs = 0;
  const now = (): Date => new Date(Date.now() + clockOffsetMs);
  const timeoutError = (connected: boolean) =>
    new S3TransportError(
      "TimeoutError",
      `no answer within ${opts.timeoutMs} ms (connecting, waiting, or between body bytes)`,
      connected,
    );

  /** Keeps our signing clock within SKEW_MS of the store's, from an answer's `Date`. */
  const followClock = (date: string | undefined): void => {
    const theirs = date === undefined ? Number.NaN : Date.parse(date);
    if (!Number.isFinite(theirs)) return;
    if (Math.abs(theirs - now().getTime()) > SKEW_MS) {
      clockOffsetMs = theirs - Date.now();
    }
  };

  const once = (req: S3Request): Promise<S3Response> => {
    const { origin, host, path } = targetOf(opts.endpoint, req.bucket, req.key);
    const query = canonicalQuery(req.query ?? []);
    const body = req.body ?? EMPTY;
    const payloadHash = body.byteLength === 0 ? EMPTY_HASH : sha256Hex(body);
    const headers: Record<string, string> = {
      ...req.headers,
      host,
      "x-amz-date": amzDateOf(now()),
      "x-amz-content-sha256": payloadHash,
    };
    if (req.method === "PUT" || req.method === "POST") {
      headers["content-length"] = String(body.byteLength);
    }
    const signed = {
      ...headers,
      authorization: authorization(signer, {
        method: req.method,
        path,
        query,
        headers,
        payloadHash,
      }),
    };
    // The path goes out as signed: a URL string would be normalized first ("a/../b" to "b").
    const { hostname, port } = new URL(origin);
    return new Promise<S3Response>((resolve, reject) => {
      const outgoing = transport.request({
        hostname: hostname.replace(/^\[|\]$/g, ""),
        port,
        path: query === "" ? path : `${path}?${query}`,
        method: req.method,
        headers: signed,
        agent,
        ...(req.signal ? { signal: req.signal } : {}),
      });
      let answered = false;
      let timedOut = false;
      let connected = false;
      const fail = (err: NodeJS.ErrnoException): void => {
        reject(
          timedOut
            ? timeoutError(connected)
            : // Node reports a failed connection to a name with several addresses as an AggregateError.
              new S3TransportError(
                err.code ??
                  (err as { errors?: NodeJS.ErrnoException[] }).errors?.[0]?.code ??
                  err.name,
                err.message,
                connected,
              ),
        );
      };
      const expire = (): void => {
        timedOut = true;
        outgoing.destroy();
      };
      // The socket's idle timeout starts once it is connected: a connect that never completes
      // (a store that drops SYNs) is bounded here.
      outgoing.on("socket", (socket) => {
        if (!socket.connecting) {
          connected = true;
          return;
        }
        const connecting = setTimeout(expire, opts.timeoutMs);
        socket.once("connect", () => {
          connected = true;
          clearTimeout(connecting);
        });
        socket.once("close", () => clearTimeout(connecting));
      });
      outgoing.setTimeout(opts.timeoutMs, expire);
      outgoing.on("error", fail);
      const reset = (message: string): void =>
        fail(Object.assign(new Error(message), { code: "ECONNRESET" }));
      outgoing.on("close", () => {
        if (!answered) reset("the connection closed before an answer");
      });
      outgoing.on("response", (res) => {
        answered = true;
        const status = res.statusCode ?? 0;
        const ok = status >= 200 && status < 300;
        const chunks: Buffer[] = [];
        let kept = 0;
        res.on("data", (chunk: Buffer) => {
          // An error's body is read to its end, for the connection's sake, but kept only so far.
          if (!ok && kept >= MAX_ERROR_BODY) return;
          chunks.push(chunk);
          kept += chunk.length;
        });
        res.on("error", fail);
        res.on("close", () => {
          if (!res.complete) reset("the answer's body was cut short");
        });
        res.on("end", () => {
          const bytes = chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks);
          if (ok && !(req.xml && hasErrorRoot(bytes))) {
            resolve({ status, headers: res.headers, body: bytes });
            return;
          }
          followClock(res.headers.date);
          // An error document under 200: the store failed after sending the status.
          reject(responseError(ok ? 500 : status, res.headers, bytes, res.statusMessage ?? ""));
        });
      });
      outgoing.end(body.byteLength === 0 ? undefined : body);
    });
  };

  return {
    async send(req) {
      let lost = false;
      for (let attempt = 1; ; attempt++) {
        const offsetBefore = clockOffsetMs;
        try {
          return await once(req);
        } catch (err) {
          if (lost && err instanceof S3ResponseError) err.afterLostAttempt = true;
          // A refusal that moved our clock to the store's is worth another try whatever its
          // code (a HEAD's answer has no body to say RequestTimeTooSkewed).
          const reclocked = clockOffsetMs !== offsetBefore;
          if (req.signal?.aborted) throw err;
          if (attempt >= opts.maxAttempts || !(reclocked || retryable(err))) throw err;
          // Without a clear refusal (throttled, skewed) the attempt may have been carried out.
          lost ||=
            (err instanceof S3TransportError && err.connected) ||
            (err instanceof S3ResponseError && AMBIGUOUS_STATUS.has(err.status));
          await sleep(backoffMs(err, attempt - 1), undefined, { signal: destroyed.signal }).catch(
            () => {},
          );
          if (destroyed.signal.aborted) throw err;
        }
      }
    },
    now,
    destroy() {
      destroyed.abort();
      agent.destroy();
    },
  };
}
