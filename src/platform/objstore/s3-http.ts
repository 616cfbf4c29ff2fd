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
  constructor(code: string, message: string) {
    super(message);
    this.code = code;
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
 * 20 s; a Retry-After the store sent (seconds) is waited for at least.
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
  destroy(): void;
}

/** `<Error>` as the root of a document: S3's error answer. */
const ERROR_ROOT = /^\s*(<\?xml[^>]*\?>\s*)?<Error>/;

function responseError(status: number, headers: IncomingHttpHeaders, body: Buffer, reason: string) {
  const parsed = parseErrorBody(body.toString("utf8"));
  const code = parsed.code ?? STATUS_CODES[status] ?? `HTTP${status}`;
  const err = new S3ResponseError(code, status, parsed.message ?? reason);
  const retryAfter = Number(headers["retry-after"]);
  if (headers["retry-after"] !== undefined && Number.isFinite(retryAfter) && retryAfter >= 0) {
    err.retryAfterMs = retryAfter * 1000;
  }
  return err;
}

export function createS3Http(opts: S3HttpOptions): S3Http {
  const signer = createSigner(opts);
  const tls = opts.endpoint.protocol === "https:";
  const transport = tls ? https : http;
  const agent = new transport.Agent({ keepAlive: true, maxSockets: opts.maxSockets });
  /** The store's clock minus ours, once they were found to differ by more than SKEW_MS. */
  let clockOffsetMs = 0;
  const timeoutError = () =>
    new S3TransportError(
      "TimeoutError",
      `no answer within ${opts.timeoutMs} ms (connecting, waiting, or between body bytes)`,
    );

  /** Keeps our signing clock within SKEW_MS of the store's, from an answer's `Date`. */
  const followClock = (date: string | undefined): void => {
    const theirs = date === undefined ? Number.NaN : Date.parse(date);
    if (!Number.isFinite(theirs)) return;
    if (Math.abs(theirs - (Date.now() + clockOffsetMs)) > SKEW_MS) {
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
      "x-amz-date": amzDateOf(new Date(Date.now() + clockOffsetMs)),
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
      });
      let answered = false;
      let timedOut = false;
      const fail = (err: NodeJS.ErrnoException): void => {
        reject(
          timedOut
            ? timeoutError()
            : // Node reports a failed connection to a name with several addresses as an AggregateError.
              new S3TransportError(
                err.code ??
                  (err as { errors?: NodeJS.ErrnoException[] }).errors?.[0]?.code ??
                  err.name,
                err.message,
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
        if (!socket.connecting) return;
        const connecting = setTimeout(expire, opts.timeoutMs);
        const done = (): void => clearTimeout(connecting);
        socket.once("connect", done);
        socket.once("close", done);
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
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("error", fail);
        res.on("close", () => {
          if (!res.complete) reset("the answer's body was cut short");
        });
        res.on("end", () => {
          const status = res.statusCode ?? 0;
          const bytes = chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks);
          const ok = status >= 200 && status < 300;
          if (ok && !(req.xml && ERROR_ROOT.test(bytes.subarray(0, 256).toString("latin1")))) {
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
        try {
          return await once(req);
        } catch (err) {
          if (lost && err instanceof S3ResponseError) err.afterLostAttempt = true;
          if (attempt >= opts.maxAttempts || !retryable(err)) throw err;
          // Without a clear refusal (throttled, skewed) the attempt may have been carried out.
          lost ||=
            err instanceof S3TransportError ||
            (err instanceof S3ResponseError && AMBIGUOUS_STATUS.has(err.status));
          await sleep(backoffMs(err, attempt - 1));
        }
      }
    },
    destroy() {
      agent.destroy();
    },
  };
}
