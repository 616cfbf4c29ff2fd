// Everything a star's verbs share.
import type { Logger } from "pino";
import type { KeyTurns } from "../platform/concurrency/index.ts";
import type { MemoryParts } from "../platform/memory/index.ts";
import type { StarAuth } from "./auth/star-auth.ts";
import type { LeaseKeeper } from "./fleet/lease-keeper.ts";
import type { Fleet } from "./fleet/members.ts";
import type { Peers } from "./fleet/peers.ts";
import type { StreamUses } from "./lifecycle/expiry.ts";
import type { StarLimits } from "./limits.ts";
import type { RunningCalls } from "./service/running-calls.ts";
import type { Catalog } from "./storage/catalog.ts";
import type { ChunkStore } from "./storage/chunk-store.ts";
import type { StoreCounts } from "./storage/counting-store.ts";
import type { Followers } from "./stream/follower-view.ts";
import type { StreamRegistry } from "./stream/registry.ts";
import type { CommitLog } from "./wal/commit-log.ts";
import type { LogReader } from "./wal/log-objects.ts";
import type { Settler } from "./wal/settler.ts";

export interface StarContext {
  readonly id: string;
  readonly catalog: Catalog;
  readonly chunks: ChunkStore;
  readonly registry: StreamRegistry;
  /** The star's write-ahead log, and the settling of it into chunk objects. */
  readonly wal: CommitLog;
  readonly settler: Settler;
  /** Every read of log objects (replay, a stopped leader's records), under the damage rule. */
  readonly logs: LogReader;
  /** Requests to the object store since the start. */
  readonly storeCounts: StoreCounts;
  /** Its caches and buffers, each with the memory it holds and its bound. */
  readonly memory: MemoryParts;
  /** Creates, reconfigures and deletes of one bucket or stream take turns on its name. */
  readonly locks: KeyTurns;
  readonly limits: StarLimits;
  readonly log: Logger;
  readonly now: () => number;
  /** Tokens and scopes; undefined when auth is off (no signing key). */
  readonly auth: StarAuth | undefined;
  /** The members and who leads what (docs/fleet.md). */
  readonly fleet: Fleet;
  /** Clients for the other members. */
  readonly peers: Peers;
  /** The streams this star reads without leading them. */
  readonly followers: Followers;
  readonly readPlan: ReadPlanOptions;
  /** In a fleet of several, this member's lease; undefined in a fleet of one. */
  lease: LeaseKeeper | undefined;
  /** When each idle-expiring stream it leads was last read or appended to. */
  readonly uses: StreamUses;
  /** The unary calls being served, answered UNAVAILABLE by a shutdown past its grace. */
  readonly calls: RunningCalls;
  /** AppendSessions open now (bounded by `limits.maxSessions`). */
  readonly appendSessions: { active: number };
  /** Runs work in the background (reclaiming storage); failures are logged, never thrown. */
  background(what: string, work: () => Promise<void>): void;
}

/** How ReadPlan names a chunk (docs/readplan.md). */
export interface ReadPlanOptions {
  /** A presigned GET URL, or the raw `{storage_bucket, object_key}`. */
  urls: "presigned" | "object";
  /** How long a plan (and its URLs) is good for. */
  ttlSeconds: number;
}
