import { Agent as HttpsAgent } from "node:https";
import type { S3Client } from "@aws-sdk/client-s3";
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

// Not an ESM import, whose face of node:http loads Node's bundled undici (docs/development.md).
const { Agent: HttpAgent } = process.getBuiltinModule("node:http");

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
  /** Bounds connecting, waiting for the response headers, and each idle gap in a body. Default 30000. */
  requestTimeoutMs?: number;
  /** Connections kept per host. Default 64. */
  maxSockets?: number;
  /** Attempts per operation, retries included (the SDK's default is 3). */
  maxAttempts?: number;
}

function credentialsOf(opts: S3StoreOptions): { accessKeyId: string; secretAccessKey: string } {
  return {
    accessKeyId: opts.accessKeyId ?? "S3RVER",
    secretAccessKey: opts.secretAccessKey ?? "S3RVER",
  };
}

type Sdk = typeof import("@aws-sdk/client-s3");

/**
 * The SDK loads with a store's first request, not with this module: every gateway and star
 * imports the object store's face, and most never talk S3 (an embedded store is used in place,
 * a gateway without history reads never reads). Loaded at import, it cost a star about 0.4 s
 * of CPU at each start and a gateway 0.2 s.
 */
let sdkModule: Promise<Sdk> | undefined;
const loadSdk = (): Promise<Sdk> => {
  sdkModule ??= import("@aws-sdk/client-s3");
  return sdkModule;
};

/** A client, made once its SDK has loaded. */
function lazyClient(opts: S3StoreOptions): {
  get(): Promise<{ sdk: Sdk; client: S3Client }>;
  destroy(): void;
} {
  let made: Promise<{ sdk: Sdk; client: S3Client }> | undefined;
  return {
    get() {
      made ??= loadSdk().then((sdk) => ({ sdk, client: createClient(sdk, opts) }));
      return made;
    },
    destroy() {
      void made?.then(({ client }) => client.destroy());
    },
  };
}

function createClient(sdk: Sdk, opts: S3StoreOptions): S3Client {
  const timeout = opts.requestTimeoutMs ?? 30_000;
  const agentOptions = { keepAlive: true, maxSockets: opts.maxSockets ?? 64 };
  return new sdk.S3Client({
    endpoint: opts.endpoint,
    region: opts.region ?? "us-east-1",
    forcePathStyle: opts.forcePathStyle ?? true,
    credentials: credentialsOf(opts),
    // The default checksums corrupt streamed uploads on s3rver.
    requestChecksumCalculation: "WHEN_REQUIRED",
    responseChecksumValidation: "WHEN_REQUIRED",
    ...(opts.maxAttempts === undefined ? {} : { maxAttempts: opts.maxAttempts }),
    requestHandler: {
      // Agent instances rather than options: the handler then uses them for every request,
      // including large uploads it would otherwise send over a fresh, unbounded agent.
      httpAgent: new HttpAgent(agentOptions),
      httpsAgent: new HttpsAgent(agentOptions),
      connectionTimeout: timeout,
      requestTimeout: timeout,
      // Without it the SDK only logs a warning when requestTimeout passes.
      throwOnRequestTimeout: true,
      socketTimeout: timeout,
    },
  });
}

interface SdkError {
  name?: string;
  code?: string;
  message?: string;
  errors?: { code?: string }[];
  $metadata?: { httpStatusCode?: number };
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

function errorCode(e: SdkError): string {
  // Node reports a failed connection to a name with several addresses as an AggregateError.
  return e.code ?? e.errors?.[0]?.code ?? e.name ?? "Error";
}

function httpStatus(e: SdkError): number | undefined {
  return e.$metadata?.httpStatusCode;
}

/** The object is not there (its bucket is). */
function noSuchKey(e: SdkError): boolean {
  const code = errorCode(e);
  return code === "NoSuchKey" || (httpStatus(e) === 404 && code !== "NoSuchBucket");
}

function secretsOf(opts: S3StoreOptions): string[] {
  return [opts.accessKeyId, opts.secretAccessKey].filter(
    (s): s is string => s !== undefined && s.length > 0,
  );
}

/** The SDK's messages quote the service's: keep credentials out of them, whatever it echoes. */
function toStoreError(
  err: unknown,
  what: string,
  key: string | undefined,
  secrets: string[],
): ObjectStoreError {
  if (err instanceof ObjectStoreError) return err;
  const e = (typeof err === "object" && err !== null ? err : { message: String(err) }) as SdkError;
  const code = errorCode(e);
  const status = httpStatus(e);
  const statusText = status === undefined ? "" : ` (HTTP ${status})`;
  let message = `S3 ${what} failed: ${code}${statusText}: ${e.message ?? ""}`;
  for (const secret of secrets) message = message.split(secret).join("***");
  return new ObjectStoreError(classify(code, status), key, message);
}

/** An ObjectStore on an S3 bucket that exists (see ensureS3Bucket). */
export function createS3Store(opts: S3StoreOptions): ObjectStore {
  const { bucket } = opts;
  const client = lazyClient(opts);
  const secrets = secretsOf(opts);
  // Path-style URLs are signed without the SDK (presign-get.ts); virtual-hosted ones by it.
  const presign =
    (opts.forcePathStyle ?? true)
      ? createGetPresigner({
          endpoint: opts.endpoint,
          region: opts.region ?? "us-east-1",
          ...credentialsOf(opts),
        })
      : undefined;
  let closed = false;

  const wrap = (err: unknown, op: string, key: string | undefined): ObjectStoreError =>
    toStoreError(err, `${op} s3://${bucket}/${key ?? ""}`, key, secrets);
  const open = (key: string | undefined): void => {
    if (closed) throw closedError(key);
  };

  const putObject = async (
    key: string,
    body: Uint8Array,
    condition: { IfNoneMatch?: string; IfMatch?: string },
  ) => {
    const { sdk, client: c } = await client.get();
    return c.send(
      new sdk.PutObjectCommand({
        Bucket: bucket,
        Key: key,
        Body: body,
        ContentLength: body.byteLength,
        ...condition,
      }),
    );
  };

  /** An object's bytes and ETag; `ranged`: the store answered the Range header. */
  const getObject = async (key: string, rangeHeader: string | undefined) => {
    const { sdk, client: c } = await client.get();
    const out = await c.send(
      new sdk.GetObjectCommand({
        Bucket: bucket,
        Key: key,
        ...(rangeHeader === undefined ? {} : { Range: rangeHeader }),
      }),
    );
    const bytes = (await out.Body?.transformToByteArray()) ?? new Uint8Array();
    return {
      body: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength),
      etag: out.ETag ?? "",
      ranged: out.ContentRange !== undefined,
    };
  };

  const list = async (
    prefix: string,
    opts: { startAfter?: string; limit?: number } = {},
  ): Promise<ListPage> => {
    open(prefix);
    const limit = pageLimit(opts.limit);
    try {
      // V1 with markers: s3rver cannot make V2 continuation tokens on Node 17+ (they need DES).
      const { sdk, client: c } = await client.get();
      const out = await c.send(
        new sdk.ListObjectsCommand({
          Bucket: bucket,
          Prefix: prefix,
          MaxKeys: limit,
          ...(opts.startAfter === undefined ? {} : { Marker: opts.startAfter }),
        }),
      );
      return listPage(
        (out.Contents ?? []).map((o) => ({ key: o.Key ?? "", size: o.Size ?? 0 })),
        out.IsTruncated,
      );
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

    async get(key: string, range?: ByteRange): Promise<Buffer | undefined> {
      open(key);
      checkKey(key);
      if (range) checkRange(key, range);
      // HTTP ranges are inclusive and cannot be empty: an empty range asks for one byte and drops it.
      const header = range && `bytes=${range.start}-${Math.max(range.start, range.end - 1)}`;
      try {
        const { body, ranged } = await getObject(key, header);
        if (!range) return body;
        // A store that ignores Range answers the whole object.
        return ranged
          ? body.subarray(0, range.end - range.start)
          : body.subarray(range.start, range.end);
      } catch (err) {
        const e = err as SdkError;
        if (noSuchKey(e)) return undefined;
        if (errorCode(e) === "InvalidRange" || httpStatus(e) === 416) return Buffer.alloc(0);
        throw wrap(err, "get", key);
      }
    },

    async getVersioned(key: string) {
      open(key);
      checkKey(key);
      try {
        const { body, etag } = await getObject(key, undefined);
        return { body, etag };
      } catch (err) {
        if (noSuchKey(err as SdkError)) return undefined;
        throw wrap(err, "get", key);
      }
    },

    async putIf(key: string, body: Uint8Array, condition: PutCondition) {
      open(key);
      checkKey(key);
      try {
        const out = await putObject(
          key,
          body,
          "ifNoneMatch" in condition
            ? { IfNoneMatch: condition.ifNoneMatch }
            : { IfMatch: condition.ifMatch },
        );
        return out.ETag ?? "";
      } catch (err) {
        const status = httpStatus(err as SdkError);
        // 409: another conditional write on the key was in progress; the caller reads again.
        if (status === 412 || status === 409) return undefined;
        throw wrap(err, "put", key);
      }
    },

    list,

    listAll(prefix: string, opts: { startAfter?: string } = {}) {
      return listPages(list, prefix, opts.startAfter);
    },

    async delete(keys: string[]): Promise<void> {
      open(keys[0]);
      for (const key of keys) checkKey(key);
      for (let i = 0; i < keys.length; i += MAX_PAGE) {
        const batch = keys.slice(i, i + MAX_PAGE);
        let failed: { Key?: string; Code?: string; Message?: string } | undefined;
        try {
          const { sdk, client: c } = await client.get();
          const out = await c.send(
            new sdk.DeleteObjectsCommand({
              Bucket: bucket,
              Delete: { Objects: batch.map((Key) => ({ Key })), Quiet: true },
            }),
          );
          failed = out.Errors?.[0];
        } catch (err) {
          throw wrap(err, "delete", batch[0]);
        }
        if (failed) {
          const code = failed.Code ?? "Error";
          throw new ObjectStoreError(
            classify(code, undefined),
            failed.Key,
            `S3 delete s3://${bucket}/${failed.Key ?? ""} failed: ${code}: ${failed.Message ?? ""}`,
          );
        }
      }
    },

    async presignGet(key: string, expiresSeconds: number): Promise<string> {
      open(key);
      checkKey(key);
      checkExpiry(key, expiresSeconds);
      try {
        if (presign) return presign(bucket, key, expiresSeconds);
        const [{ sdk, client: c }, { getSignedUrl }] = await Promise.all([
          client.get(),
          import("@aws-sdk/s3-request-presigner"),
        ]);
        return await getSignedUrl(c, new sdk.GetObjectCommand({ Bucket: bucket, Key: key }), {
          expiresIn: expiresSeconds,
        });
      } catch (err) {
        throw wrap(err, "presign", key);
      }
    },

    close(): void {
      if (closed) return;
      closed = true;
      client.destroy();
    },
  };
}

/** Creates the bucket unless it exists; safe to call concurrently and repeatedly. */
export async function ensureS3Bucket(opts: S3StoreOptions): Promise<void> {
  const sdk = await loadSdk();
  const client = createClient(sdk, opts);
  const exists = async (): Promise<boolean> => {
    try {
      await client.send(new sdk.HeadBucketCommand({ Bucket: opts.bucket }));
      return true;
    } catch (err) {
      if (httpStatus(err as SdkError) === 404) return false;
      throw err;
    }
  };
  try {
    if (await exists()) return;
    try {
      await client.send(new sdk.CreateBucketCommand({ Bucket: opts.bucket }));
    } catch (err) {
      const code = errorCode(err as SdkError);
      // Lost a race with another creator: fine when the bucket is now ours to use.
      if (code === "BucketAlreadyOwnedByYou") return;
      if (code !== "BucketAlreadyExists" || !(await exists())) throw err;
    }
  } catch (err) {
    throw toStoreError(err, `create bucket ${opts.bucket}`, undefined, secretsOf(opts));
  } finally {
    client.destroy();
  }
}
