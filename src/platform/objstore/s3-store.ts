import { createHash } from "node:crypto";
import { ObjectStoreError, type ObjectStoreErrorKind } from "./errors.ts";
import {
  type ByteRange,
  checkExpiry,
  checkKey,
  checkRange,
  closedError,
  type ListPage,
  listPage,
  listPages,
  MAX_PAGE,
  type ObjectStore,
  type PutCondition,
  pageLimit,
} from "./object-store.ts";
import { createGetPresigner } from "./presign-get.ts";
import { createS3Http, type S3Http, S3ResponseError, S3TransportError } from "./s3-http.ts";
import { parseEndpoint } from "./s3-url.ts";
import { deleteBody, parseDeleteFailure, parseListResult, xmlCanCarry } from "./s3-xml.ts";
import { S3_CLIENT_DEFAULTS } from "./settings.ts";
import type { SigningSettings } from "./sigv4.ts";

export interface S3StoreOptions {
  /** e.g. http://127.0.0.1:4568 */
  endpoint: string;
  bucket: string;
  /** default us-east-1 */
  region?: string;
  /** default S3RVER, s3rver's fixed key */
  accessKeyId?: string;
  /** default S3RVER */
  secretAccessKey?: string;
  /** default true: s3rver and most self-hosted stores do not resolve bucket host names */
  forcePathStyle?: boolean;
  /** Bounds connecting, waiting for the response headers, and each idle gap in a body. */
  requestTimeoutMs?: number;
  /** Connections kept per host. */
  maxSockets?: number;
  /** Attempts per operation, retries included. */
  maxAttempts?: number;
}

/** The region and credentials requests are signed with, defaults filled in. */
function signingOf(opts: S3StoreOptions): SigningSettings {
  return {
    region: opts.region ?? "us-east-1",
    accessKeyId: opts.accessKeyId ?? "S3RVER",
    secretAccessKey: opts.secretAccessKey ?? "S3RVER",
  };
}

function httpOf(opts: S3StoreOptions): S3Http {
  return createS3Http({
    endpoint: parseEndpoint(opts.endpoint, opts.forcePathStyle ?? true),
    ...signingOf(opts),
    timeoutMs: opts.requestTimeoutMs ?? S3_CLIENT_DEFAULTS.timeoutMs,
    maxSockets: opts.maxSockets ?? S3_CLIENT_DEFAULTS.connections,
    maxAttempts: opts.maxAttempts ?? S3_CLIENT_DEFAULTS.maxAttempts,
  });
}

const UNAVAILABLE_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "EPIPE",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ECONNABORTED",
  "ServiceUnavailable",
  "SlowDown",
  "InternalError",
]);
const DENIED_CODES = new Set([
  "AccessDenied",
  "InvalidAccessKeyId",
  "SignatureDoesNotMatch",
  "ExpiredToken",
  "InvalidToken",
]);
const TIMEOUT_CODES = new Set(["TimeoutError", "ETIMEDOUT", "RequestTimeout"]);

function classify(code: string, status: number | undefined): ObjectStoreErrorKind {
  if (TIMEOUT_CODES.has(code)) return "timeout";
  if (DENIED_CODES.has(code) || status === 401 || status === 403) return "denied";
  if (UNAVAILABLE_CODES.has(code) || (status !== undefined && status >= 500)) return "unavailable";
  return "other";
}

const codeOf = (err: unknown): string | undefined =>
  err instanceof S3ResponseError || err instanceof S3TransportError ? err.code : undefined;
const statusOf = (err: unknown): number | undefined =>
  err instanceof S3ResponseError ? err.status : undefined;

/** The object is not there (its bucket is). */
function noSuchKey(err: unknown): boolean {
  const code = codeOf(err);
  return code === "NoSuchKey" || (statusOf(err) === 404 && code !== "NoSuchBucket");
}

function secretsOf(opts: S3StoreOptions): string[] {
  return [opts.accessKeyId, opts.secretAccessKey].filter(
    (s): s is string => s !== undefined && s.length > 0,
  );
}

/** S3's messages may quote the request: keep credentials out of them, whatever it echoes. */
function toStoreError(
  err: unknown,
  what: string,
  key: string | undefined,
  secrets: string[],
): ObjectStoreError {
  if (err instanceof ObjectStoreError) return err;
  const code = codeOf(err) ?? "Error";
  const status = statusOf(err);
  const statusText = status === undefined ? "" : ` (HTTP ${status})`;
  const message = `S3 ${what} failed: ${code}${statusText}: ${err instanceof Error ? err.message : String(err)}`;
  return new ObjectStoreError(classify(code, status), key, scrub(message, secrets));
}

const scrub = (message: string, secrets: string[]): string =>
  secrets.reduce((m, secret) => m.split(secret).join("***"), message);

/** An ObjectStore on an S3 bucket that exists (see ensureS3Bucket). */
export function createS3Store(opts: S3StoreOptions): ObjectStore {
  const { bucket } = opts;
  const http = httpOf(opts);
  const secrets = secretsOf(opts);
  const presign = createGetPresigner({
    endpoint: opts.endpoint,
    forcePathStyle: opts.forcePathStyle ?? true,
    ...signingOf(opts),
  });
  let closed = false;

  const wrap = (err: unknown, op: string, key: string | undefined): ObjectStoreError =>
    toStoreError(err, `${op} s3://${bucket}/${key ?? ""}`, key, secrets);
  const open = (key: string | undefined): void => {
    if (closed) throw closedError(key);
  };

  const putObject = (key: string, body: Uint8Array, headers: Record<string, string>) =>
    http.send({
      method: "PUT",
      bucket,
      key,
      body,
      // What S3 stores when none is given, and what s3rver keeps without a metadata file.
      headers: { "content-type": "application/octet-stream", ...headers },
    });

  /** An object's bytes and ETag; `ranged`: the store answered the Range header. */
  const getObject = async (key: string, rangeHeader: string | undefined, signal?: AbortSignal) => {
    const res = await http.send({
      method: "GET",
      bucket,
      key,
      ...(rangeHeader === undefined ? {} : { headers: { range: rangeHeader } }),
      ...(signal ? { signal } : {}),
    });
    return {
      body: res.body,
      etag: res.headers.etag ?? "",
      ranged: res.headers["content-range"] !== undefined,
    };
  };

  /** The object and its ETag; undefined when there is none. */
  const readVersioned = async (key: string, op: string) => {
    try {
      const { body, etag } = await getObject(key, undefined);
      return { body, etag };
    } catch (err) {
      if (noSuchKey(err)) return undefined;
      throw wrap(err, op, key);
    }
  };

  const list = async (
    prefix: string,
    opts: { startAfter?: string; limit?: number } = {},
  ): Promise<ListPage> => {
    open(prefix);
    const limit = pageLimit(opts.limit);
    try {
      // V1 with markers: s3rver cannot make V2 continuation tokens on Node 17+ (they need DES).
      const res = await http.send({
        method: "GET",
        bucket,
        xml: true,
        query: [
          ["encoding-type", "url"],
          ["prefix", prefix],
          ["max-keys", String(limit)],
          ...(opts.startAfter === undefined ? [] : [["marker", opts.startAfter] as const]),
        ],
      });
      const { objects, truncated } = parseListResult(res.body.toString("utf8"));
      return listPage(objects, truncated);
    } catch (err) {
      throw wrap(err, "list", prefix);
    }
  };

  return {
    bucket,
    async put(key: string, body: Uint8Array): Promise<void> {
      open(key);
      checkKey(key);
      try {
        await putObject(key, body, {});
      } catch (err) {
        throw wrap(err, "put", key);
      }
    },

    async get(key: string, range?: ByteRange, signal?: AbortSignal): Promise<Buffer | undefined> {
      open(key);
      checkKey(key);
      if (range) checkRange(key, range);
      // HTTP ranges are inclusive and cannot be empty: an empty range asks for one byte and drops it.
      const header = range && `bytes=${range.start}-${Math.max(range.start, range.end - 1)}`;
      try {
        const { body, ranged } = await getObject(key, header, signal);
        if (!range) return body;
        // A store that ignores Range answers the whole object.
        return ranged
          ? body.subarray(0, range.end - range.start)
          : body.subarray(range.start, range.end);
      } catch (err) {
        if (noSuchKey(err)) return undefined;
        if (codeOf(err) === "InvalidRange" || statusOf(err) === 416) return Buffer.alloc(0);
        throw wrap(err, "get", key);
      }
    },

    async getVersioned(key: string) {
      open(key);
      checkKey(key);
      return readVersioned(key, "get");
    },

    async putIf(key: string, body: Uint8Array, condition: PutCondition) {
      open(key);
      checkKey(key);
      try {
        const res = await putObject(
          key,
          body,
          "ifNoneMatch" in condition
            ? { "if-none-match": condition.ifNoneMatch }
            : { "if-match": condition.ifMatch },
        );
        return res.headers.etag ?? "";
      } catch (err) {
        const status = statusOf(err);
        // S3 answers If-Match on a missing object 404: the condition did not hold either.
        if ("ifMatch" in condition && noSuchKey(err)) return undefined;
        // 409: another conditional write on the key was in progress; the caller reads again.
        if (status !== 412 && status !== 409) throw wrap(err, "put", key);
        if (!(err instanceof S3ResponseError && err.afterLostAttempt)) return undefined;
        // An earlier attempt's answer was lost, and it may have written the object that now
        // fails the condition: ours when it holds our bytes. Unknown if it cannot be read.
        const there = await readVersioned(key, "put");
        if (there?.body.equals(body)) return there.etag;
        // A 409 says a conditional write on the key is still in progress, which may be our lost
        // attempt, landing after this read: with nothing there yet, that the condition failed
        // is not known, so the outcome is unknown (the caller treats it as a write that may
        // have landed). Another's object there is a condition that failed.
        if (status === 409 && there === undefined) {
          throw new ObjectStoreError(
            "unavailable",
            key,
            `put ${bucket}/${key}: a conditional write on the key was in progress after an attempt whose answer was lost, which may be that attempt landing: its outcome is unknown`,
          );
        }
        return undefined;
      }
    },

    list,

    listAll(prefix: string, opts: { startAfter?: string } = {}) {
      return listPages(list, prefix, opts.startAfter);
    },

    async delete(keys: string[]): Promise<void> {
      open(keys[0]);
      for (const key of keys) checkKey(key);
      // A key with a character XML 1.0 cannot carry (most controls, even as a reference) would
      // make the whole batch's document malformed: such keys go one DELETE each.
      const batched = keys.filter(xmlCanCarry);
      for (const key of keys) {
        if (xmlCanCarry(key)) continue;
        try {
          await http.send({ method: "DELETE", bucket, key });
        } catch (err) {
          if (!noSuchKey(err)) throw wrap(err, "delete", key);
        }
      }
      for (let i = 0; i < batched.length; i += MAX_PAGE) {
        const batch = batched.slice(i, i + MAX_PAGE);
        let failed: ReturnType<typeof parseDeleteFailure>;
        try {
          const body = Buffer.from(deleteBody(batch), "utf8");
          const res = await http.send({
            method: "POST",
            bucket,
            xml: true,
            query: [["delete", ""]],
            // S3 takes a multi-object delete only with its body's digest.
            headers: { "content-md5": createHash("md5").update(body).digest("base64") },
            body,
          });
          failed = parseDeleteFailure(res.body.toString("utf8"));
        } catch (err) {
          throw wrap(err, "delete", batch[0]);
        }
        if (failed) {
          const code = failed.code ?? "Error";
          throw new ObjectStoreError(
            classify(code, undefined),
            failed.key,
            scrub(
              `S3 delete s3://${bucket}/${failed.key ?? ""} failed: ${code}: ${failed.message ?? ""}`,
              secrets,
            ),
          );
        }
      }
    },

    async presignGet(key: string, expiresSeconds: number): Promise<string> {
      open(key);
      checkKey(key);
      checkExpiry(key, expiresSeconds);
      try {
        return presign(bucket, key, expiresSeconds, http.now());
      } catch (err) {
        // A key that is no valid UTF-16 (a lone surrogate) cannot be encoded.
        throw wrap(err, "presign", key);
      }
    },

    close(): void {
      if (closed) return;
      closed = true;
      http.destroy();
    },
  };
}

/** Creates the bucket unless it exists; safe to call concurrently and repeatedly. */
export async function ensureS3Bucket(opts: S3StoreOptions): Promise<void> {
  const http = httpOf(opts);
  const { region } = signingOf(opts);
  const exists = async (): Promise<boolean> => {
    try {
      await http.send({ method: "HEAD", bucket: opts.bucket });
      return true;
    } catch (err) {
      if (statusOf(err) === 404) return false;
      throw err;
    }
  };
  try {
    if (await exists()) return;
    try {
      await http.send({
        method: "PUT",
        bucket: opts.bucket,
        // Outside us-east-1 S3 wants the region named; the default region takes no body.
        ...(region === "us-east-1"
          ? {}
          : {
              body: Buffer.from(
                `<CreateBucketConfiguration><LocationConstraint>${region}</LocationConstraint></CreateBucketConfiguration>`,
              ),
            }),
      });
    } catch (err) {
      const code = codeOf(err);
      // Lost a race with another creator: fine when the bucket is now ours to use.
      if (code === "BucketAlreadyOwnedByYou") return;
      if (code !== "BucketAlreadyExists" || !(await exists())) throw err;
    }
  } catch (err) {
    throw toStoreError(err, `create bucket ${opts.bucket}`, undefined, secretsOf(opts));
  } finally {
    http.destroy();
  }
}
