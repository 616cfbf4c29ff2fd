// The per-verb auth check of nova.v1.DataPlaneService: each verb's need (docs/auth.md), checked
// against the call's bearer token before the verb runs. ExchangeToken is exempt; AppendSession
// authenticates when the call starts and checks its scope at the open frame (which names the
// stream); Subscribe and AppendSession end with UNAUTHENTICATED when their token expires.
import type {
  handleUnaryCall,
  Metadata,
  ServerDuplexStream,
  ServerWritableStream,
} from "@grpc/grpc-js";
import type { AdminPlaneServiceHandlers } from "../../gen/nova/v1/AdminPlaneService.ts";
import type { Bucket } from "../../gen/nova/v1/Bucket.ts";
import type { DataPlaneServiceHandlers } from "../../gen/nova/v1/DataPlaneService.ts";
import { carriesTrim } from "../append/command-records.ts";
import { toServiceError } from "../errors.ts";
import { allows } from "./scope.ts";
import { type Need, permissionDenied, type StarAuth, unauthenticated } from "./star-auth.ts";
import type { Principal } from "./tokens.ts";

type Action = Need["action"];
const q = JSON.stringify;

/** A stream's need: its key is matched against prefix grants. */
export const onStream = (action: Action, r: { bucket: string; key: string }): Need => ({
  action,
  resource: { bucket: r.bucket, prefix: r.key },
  what: `stream ${q(r.key)} in bucket ${q(r.bucket)}`,
});
const onListing = (r: { bucket: string; prefix: string }): Need => ({
  action: "read",
  resource: { bucket: r.bucket, prefix: r.prefix },
  what:
    r.prefix === ""
      ? `the streams of bucket ${q(r.bucket)}`
      : `streams with prefix ${q(r.prefix)} in bucket ${q(r.bucket)}`,
});
const onBucket = (action: Action, r: { name: string }): Need => ({
  action,
  resource: { bucket: r.name },
  what: `bucket ${q(r.name)}`,
});

/** Every admin verb targets this one star, and needs nova:admin on everything. */
const ADMIN: Need = { action: "admin", resource: {}, what: "this star's admin plane" };

/** SettleStar also admits nova:node (seed 004): a member or tooling that only settles. */
function checkAdminOrNode(auth: StarAuth, metadata: Metadata): void {
  const { scope } = auth.authenticate(metadata);
  if (!allows(scope, "admin", {}) && !allows(scope, "node", {})) {
    throw permissionDenied("the token's scope allows neither admin nor node on this star");
  }
}

/** The admin plane with each verb's check in front; unchanged when auth is off. */
export function guardAdminHandlers(
  auth: StarAuth | undefined,
  h: AdminPlaneServiceHandlers,
): AdminPlaneServiceHandlers {
  if (!auth) return h;
  const guarded = <Req, Res>(
    handler: handleUnaryCall<Req, Res>,
    check: (metadata: Metadata) => void,
  ): handleUnaryCall<Req, Res> => {
    return (call, callback) => {
      try {
        check(call.metadata);
      } catch (err) {
        callback(toServiceError(err));
        return;
      }
      handler(call, callback);
    };
  };
  const admin = (metadata: Metadata) => {
    auth.check(metadata, ADMIN);
  };
  return {
    Health: guarded(h.Health, admin),
    StarStats: guarded(h.StarStats, admin),
    SettleStar: guarded(h.SettleStar, (metadata) => checkAdminOrNode(auth, metadata)),
  };
}

/** The handlers with every verb's check in front; unchanged when auth is off. */
export function guardHandlers(
  auth: StarAuth | undefined,
  h: DataPlaneServiceHandlers,
): DataPlaneServiceHandlers {
  if (!auth) return h;
  const unary = <Req, Res>(
    handler: handleUnaryCall<Req, Res>,
    need: (req: Req) => Need,
    alsoNeeds: (req: Req) => Need | undefined = () => undefined,
  ): handleUnaryCall<Req, Res> => {
    return (call, callback) => {
      try {
        const principal = auth.check(call.metadata, need(call.request));
        const also = alsoNeeds(call.request);
        if (also) auth.require(principal, also);
      } catch (err) {
        callback(toServiceError(err));
        return;
      }
      handler(call, callback);
    };
  };
  return {
    Append: unary(
      h.Append,
      (r) => onStream("append", r),
      (r) => batchNeed(r, r.records),
    ),
    AppendSession: (call) => {
      let principal: Principal;
      try {
        principal = auth.authenticate(call.metadata);
      } catch (err) {
        call.emit("error", toServiceError(err));
        return;
      }
      endAtExpiry(auth, call, principal);
      h.AppendSession(call);
    },
    Read: unary(h.Read, (r) => onStream("read", r)),
    Subscribe: subscribeGuard(auth, h.Subscribe),
    CheckTail: unary(h.CheckTail, (r) => onStream("read", r)),
    ReadPlan: unary(h.ReadPlan, (r) => onStream("read", r)),
    CreateStream: unary(h.CreateStream, (r) => onStream("create", r)),
    ReconfigureStream: unary(h.ReconfigureStream, (r) => onStream("create", r)),
    GetStream: unary(h.GetStream, (r) => onStream("read", r)),
    DeleteStream: unary(h.DeleteStream, (r) => onStream("create", r)),
    ListStreams: unary(h.ListStreams, onListing),
    Trim: unary(h.Trim, (r) => onStream("trim", r)),
    // Fence rides the append scope (docs/auth.md).
    Fence: unary(h.Fence, (r) => onStream("append", r)),
    CreateBucket: unary(h.CreateBucket, (r) => onBucket("admin", r)),
    GetBucket: unary(h.GetBucket, (r) => onBucket("read", r)),
    ListBuckets: listBucketsGuard(auth, h.ListBuckets),
    ReconfigureBucket: unary(h.ReconfigureBucket, (r) => onBucket("admin", r)),
    DeleteBucket: unary(h.DeleteBucket, (r) => onBucket("admin", r)),
    ExchangeToken: h.ExchangeToken,
  };
}

/** A batch with a trim command record trims as Trim does: it needs trim too (docs/auth.md). */
function batchNeed(
  stream: { bucket: string; key: string },
  records: Parameters<typeof carriesTrim>[0],
): Need | undefined {
  return carriesTrim(records) ? onStream("trim", stream) : undefined;
}

/** An AppendSession batch's further need, beyond the open frame's append. No-op when auth is off. */
export function checkSessionBatch(
  auth: StarAuth | undefined,
  metadata: Metadata,
  stream: { bucket: string; key: string },
  records: Parameters<typeof carriesTrim>[0],
): void {
  const need = auth && batchNeed(stream, records);
  if (need) auth.check(metadata, need);
}

/** AppendSession's open frame: the stream it names needs append. No-op when auth is off. */
export function checkSessionOpen(
  auth: StarAuth | undefined,
  metadata: Metadata,
  stream: { bucket: string; key: string },
): void {
  auth?.check(metadata, onStream("append", stream));
}

function subscribeGuard(
  auth: StarAuth,
  handler: DataPlaneServiceHandlers["Subscribe"],
): DataPlaneServiceHandlers["Subscribe"] {
  return (call) => {
    let principal: Principal;
    try {
      principal = auth.check(call.metadata, onStream("read", call.request));
    } catch (err) {
      call.emit("error", toServiceError(err));
      return;
    }
    endAtExpiry(auth, call, principal);
    handler(call);
  };
}

/**
 * ListBuckets answers only the buckets the token may read as a whole (those GetBucket answers),
 * so a token narrowed to one bucket lists that one; a token that can read no whole bucket is
 * refused. One that reads every bucket gets the listing as it is. One that reads named buckets
 * gets those of them that exist, each looked up by its name, in name order from the request's
 * cursor: no other bucket is read (a catalog of many buckets costs such a token what its own
 * cost), nor shown, not even as a cursor.
 */
function listBucketsGuard(
  auth: StarAuth,
  handler: DataPlaneServiceHandlers["ListBuckets"],
): DataPlaneServiceHandlers["ListBuckets"] {
  return (call, callback) => {
    let principal: Principal;
    try {
      principal = auth.authenticate(call.metadata);
    } catch (err) {
      callback(toServiceError(err));
      return;
    }
    const whole = principal.scope.filter(
      (g) => (g.action === "*" || g.action === "read") && g.resource.prefix === undefined,
    );
    if (whole.length === 0) {
      callback(permissionDenied("the token's scope does not allow read on any whole bucket"));
      return;
    }
    if (whole.some((g) => g.resource.bucket === undefined)) {
      handler(call, callback);
      return;
    }
    const { prefix, start_after: after, limit } = call.request;
    // Bucket names are ASCII: string order is their byte order, the listing's.
    const named = [...new Set(whole.map((g) => g.resource.bucket as string))]
      .filter((name) => name.startsWith(prefix) && name > after)
      .sort();
    // The same call, asking for one name: everything else (metadata, deadline) its own. A
    // bucket sorts first among those its name prefixes.
    const lookUp = (name: string) =>
      new Promise<Bucket | undefined>((resolve, reject) => {
        const one = Object.create(call, {
          request: { value: { ...call.request, prefix: name, start_after: "", limit: 1 } },
        }) as typeof call;
        handler(one, (err, res) =>
          err || !res
            ? reject(err)
            : resolve(res.buckets?.find((b) => b.name === name) ?? undefined),
        );
      });
    (async () => {
      const buckets: Bucket[] = [];
      let more = false;
      for (const name of named) {
        if (call.cancelled) break;
        const bucket = await lookUp(name);
        if (!bucket) continue;
        if (limit > 0 && buckets.length === limit) {
          more = true;
          break;
        }
        buckets.push(bucket);
      }
      return { buckets, next: more ? (buckets.at(-1)?.name ?? "") : "" };
    })().then(
      (res) => callback(null, res),
      (err) => callback(toServiceError(err)),
    );
  };
}

/** setTimeout's longest delay. */
const MAX_DELAY_MS = 2 ** 31 - 1;

/**
 * Ends a long-lived call with UNAUTHENTICATED when its token expires (docs/auth.md). The verbs
 * release what they hold on "cancelled", as when a client goes away, so it is emitted too.
 */
function endAtExpiry(
  auth: StarAuth,
  call: ServerWritableStream<unknown, unknown> | ServerDuplexStream<unknown, unknown>,
  principal: Principal,
): void {
  const timer = setTimeout(
    () => {
      call.emit(
        "error",
        unauthenticated("the token has expired; exchange a new one and reconnect"),
      );
      call.emit("cancelled", "token expired");
    },
    Math.min(Math.max(0, principal.expiresAtMs - auth.now()), MAX_DELAY_MS),
  );
  timer.unref();
  const clear = () => clearTimeout(timer);
  call.once("close", clear);
  call.once("finish", clear);
  call.once("cancelled", clear);
}
