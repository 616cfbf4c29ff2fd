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

/** What S3 and the SDK's standard retry strategy retry: throttling, 5xx, and lost connections. */
const RETRYABLE_CODES = new Set([
  "SlowDown",
  "Throttling",
  "ThrottlingException",
  "RequestTimeout",
  "RequestTimeTooSkewed",
  "InternalError",
]);
const retryable = (err: unknown): boolean =>
  err instanceof S3TransportError ||
  (err instanceof S3ResponseError &&
    (err.status >= 500 || err.status === 429 || RETRYABLE_CODES.has(err.code)));

/** The SDK's backoff: full jitter on 100 ms doubled per retry, at most 20 s. */
const backoffMs = (retry: number): number => Math.random() * Math.min(20_000, 100 * 2 ** retry);

const EMPTY = new Uint8Array(0);
const EMPTY_HASH = sha256Hex(EMPTY);

export interface S3Http {
  send(req: S3Request): Promise<S3Response>;
  destroy(): void;
}

export function createS3Http(opts: S3HttpOptions): S3Http {
  const signer = createSigner(opts);
  const tls = opts.endpoint.protocol === "https:";
  const transport = tls ? https : http;
  const agent = new transport.Agent({ keepAlive: true, maxSockets: opts.maxSockets });

  const once = (req: S3Request): Promise<S3Response> => {
    const { origin, host, path } = targetOf(opts.endpoint, req.bucket, req.key);
    const query = canonicalQuery(req.query ?? []);
    const body = req.body ?? EMPTY;
    const payloadHash = body.byteLength === 0 ? EMPTY_HASH : sha256Hex(body);
    const headers: Record<string, string> = {
      ...req.headers,
      host,
      "x-amz-date": amzDateOf(new Date()),
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
    const url = `${origin}${path}${query === "" ? "" : `?${query}`}`;
    return new Promise<S3Response>((resolve, reject) => {
      const outgoing = transport.request(url, { method: req.method, headers: signed, agent });
      let answered = false;
      let timedOut = false;
      const fail = (err: NodeJS.ErrnoException): void => {
        reject(
          timedOut
            ? new S3TransportError(
                "TimeoutError",
                `no answer within ${opts.timeoutMs} ms (connecting, waiting, or between body bytes)`,
              )
            : // Node reports a failed connection to a name with several addresses as an AggregateError.
              new S3TransportError(
                err.code ??
                  (err as { errors?: NodeJS.ErrnoException[] }).errors?.[0]?.code ??
                  err.name,
                err.message,
              ),
        );
      };
      outgoing.setTimeout(opts.timeoutMs, () => {
        timedOut = true;
        outgoing.destroy();
      });
      outgoing.on("error", fail);
      outgoing.on("close", () => {
        if (!answered)
          fail(
            Object.assign(new Error("the connection closed before an answer"), {
              code: "ECONNRESET",
            }),
          );
      });
      outgoing.on("response", (res) => {
        answered = true;
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("error", fail);
        res.on("close", () => {
          if (!res.complete)
            fail(
              Object.assign(new Error("the answer's body was cut short"), { code: "ECONNRESET" }),
            );
        });
        res.on("end", () => {
          const status = res.statusCode ?? 0;
          const bytes = chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks);
          if (status >= 200 && status < 300) {
            resolve({ status, headers: res.headers, body: bytes });
            return;
          }
          const parsed = parseErrorBody(bytes.toString("utf8"));
          const code = parsed.code ?? STATUS_CODES[status] ?? `HTTP${status}`;
          reject(new S3ResponseError(code, status, parsed.message ?? res.statusMessage ?? ""));
        });
      });
      outgoing.end(body.byteLength === 0 ? undefined : body);
    });
  };

  return {
    async send(req) {
      for (let attempt = 1; ; attempt++) {
        try {
          return await once(req);
        } catch (err) {
          if (attempt >= opts.maxAttempts || !retryable(err)) throw err;
          await sleep(backoffMs(attempt - 1));
        }
      }
    },
    destroy() {
      agent.destroy();
    },
  };
}
