// s3rver 3.7.1's HTTP side diverges from S3 in ways the star would trip over; this patches a
// server in place before it runs (its store is patched on its own: s3rver-store-fixes.ts):
// - its multi-object delete parses keys as XML values: "0001" becomes the number 1 (a 500),
//   " x " is trimmed to "x" (silently not deleted), and multi-byte characters split across
//   chunks are mangled, and its HTML entity decoder reads a numeric reference as HTML does
//   (&#x85; as U+2026, not U+0085); here keys are read as XML gives them (s3-xml.ts) and deleted
//   one at a time;
// - it ignores If-None-Match and If-Match on PUT, which S3 honours atomically (a 412 when the
//   condition fails): conditional PUTs are checked and written in their key's turn here, which
//   deletes and in-place PUTs of the key take too.
// - it serves requests that carry no signature at all (only a wrong one is refused), so any
//   local process, or a web page's simple request, could read, write and delete objects: here
//   they are 403 AccessDenied;
// - it keeps a key as a path, so a key with a `.` or `..` segment named another object or a file
//   outside the bucket: here such keys are 400 (the in-process store refuses them too).
// Not patched: a truncated ListObjectsV2 page fails with a 500, as its continuation token needs
// DES, which Node 17+ (OpenSSL 3) lacks: the S3 store lists with V1 markers instead.
import { existsSync } from "node:fs";
import type { Readable } from "node:stream";
import type S3rver from "s3rver";
import type { KeyTurns } from "../concurrency/index.ts";
import { parseDeleteRequest } from "./s3-xml.ts";
import { type FilesystemStore, requireFromS3rver, storeOf } from "./s3rver-internals.ts";
import { etagOf, turnKey } from "./s3rver-store-fixes.ts";

interface KoaContext {
  req: Readable;
  params: { bucket: string };
  store: FilesystemStore;
  body: unknown;
}

const S3Error = requireFromS3rver("./models/error.js") as new (
  code: string,
  message: string,
) => Error;
const objectController = requireFromS3rver("./controllers/object.js") as {
  deleteMultipleObjects(ctx: KoaContext): Promise<void>;
};

/** Multi-object delete with keys taken verbatim, deleted one at a time, each in its key's turn. */
const deleteMultipleObjectsIn =
  (turns: KeyTurns) =>
  async (ctx: KoaContext): Promise<void> => {
    const chunks: Buffer[] = [];
    for await (const chunk of ctx.req) chunks.push(chunk as Buffer);
    let keys: string[];
    try {
      keys = parseDeleteRequest(Buffer.concat(chunks).toString("utf8"));
    } catch {
      keys = [];
    }
    if (keys.length === 0) {
      throw new S3Error(
        "MalformedXML",
        "The XML you provided was not well-formed or did not validate against our published schema.",
      );
    }
    const { bucket } = ctx.params;
    for (const key of keys) {
      await turns.take(turnKey(bucket, key), async () => {
        if (await ctx.store.existsObject(bucket, key)) await ctx.store.deleteObject(bucket, key);
      });
    }
    ctx.body = {
      DeleteResult: {
        "@": { xmlns: "http://s3.amazonaws.com/doc/2006-03-01/" },
        Deleted: keys.map((Key) => ({ Key })),
      },
    };
  };

type KoaMiddleware = (ctx: ConditionalContext, next: () => Promise<void>) => Promise<void>;

interface ConditionalContext {
  method: string;
  path: string;
  query: Record<string, unknown>;
  headers: Record<string, unknown>;
  get(header: string): string;
  status: number;
  body: unknown;
}

/** Refuses a request with no signature (s3rver's own check passes those) or a dot-segment key. */
async function signedAndInside(ctx: ConditionalContext, next: () => Promise<void>): Promise<void> {
  const signed =
    "authorization" in ctx.headers || "Signature" in ctx.query || "X-Amz-Algorithm" in ctx.query;
  if (!signed) throw new S3Error("AccessDenied", "Access Denied: the request is not signed");
  let path = ctx.path;
  try {
    path = decodeURIComponent(path);
  } catch {
    // Not percent-encoding: s3rver's router refuses it, or takes it as written.
  }
  if (path.split("/").some((s) => s === "." || s === "..")) {
    throw new S3Error("InvalidArgument", "a bucket or key segment may not be . or ..");
  }
  await next();
}

/**
 * A conditional PUT or a DELETE of an object takes one turn on its key, shared with the
 * in-process store (s3rver-local-store.ts), and S3's condition is checked in it: with
 * If-None-Match: * only where no object is, with If-Match only over the object with that ETag,
 * else 412. So a condition's check and its write are one step beside every other write of the
 * key but a plain PUT over HTTP, which takes no turn: its body arrives at the client's pace, and
 * would hold every write of the key behind a stalled upload.
 */
function writesInTurn(store: FilesystemStore, turns: KeyTurns): KoaMiddleware {
  return async (ctx, next) => {
    const ifNoneMatch = ctx.method === "PUT" ? ctx.get("if-none-match") : "";
    const ifMatch = ctx.method === "PUT" ? ctx.get("if-match") : "";
    const conditional = ifNoneMatch !== "" || ifMatch !== "";
    if (!conditional && ctx.method !== "DELETE") return next();
    const slash = ctx.path.indexOf("/", 1);
    if (slash < 0) return next();
    let bucket: string;
    let key: string;
    try {
      bucket = decodeURIComponent(ctx.path.slice(1, slash));
      key = decodeURIComponent(ctx.path.slice(slash + 1));
    } catch {
      // Not percent-encoding: s3rver's router answers it.
      return next();
    }
    await turns.take(turnKey(bucket, key), async () => {
      if (!conditional) return next();
      // If-None-Match needs only whether the object is there, not its bytes' checksum.
      const holds =
        ifNoneMatch === "*"
          ? !existsSync(store.getResourcePath(bucket, key, "object"))
          : (await etagOf(store, bucket, key)) === ifMatch;
      if (!holds) {
        ctx.status = 412;
        ctx.body = {
          Error: {
            Code: "PreconditionFailed",
            Message: "At least one of the pre-conditions you specified did not hold",
          },
        };
        return;
      }
      await next();
    });
  };
}

/**
 * Applies the fixes to a server before it runs, over its store as it is then (the patched one
 * the embedded store's process shares: s3rver-server.ts).
 */
export function fixS3rverServer(server: S3rver, turns: KeyTurns): void {
  // s3rver's router looks the controller up on every request, so replacing it takes effect.
  objectController.deleteMultipleObjects = deleteMultipleObjectsIn(turns);
  // Before the router (the last middleware), after the virtual-host rewrite to path style.
  const { middleware } = server as unknown as { middleware: KoaMiddleware[] };
  middleware.splice(
    middleware.length - 1,
    0,
    signedAndInside,
    writesInTurn(storeOf(server), turns),
  );
}
