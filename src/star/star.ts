// The library entry: one star serving nova.v1.DataPlaneService and AdminPlaneService over gRPC
// on an object store. The gateway's embedded mode and the star process both start it here.
import * as grpc from "@grpc/grpc-js";
import pino, { type Logger } from "pino";
import { type InProcessStar, NOVA_CHANNEL_OPTIONS, nova } from "../contract/proto/index.ts";
import { KeyTurns, unlessRunning } from "../platform/concurrency/index.ts";
import { MemoryParts } from "../platform/memory/index.ts";
import type { ObjectStore } from "../platform/objstore/index.ts";
import { AppendBudget } from "./append/append-budget.ts";
import { guardAdminHandlers } from "./auth/guard.ts";
import { type AuthConfig, StarAuth } from "./auth/star-auth.ts";
import type { ReadPlanOptions, StarContext } from "./context.ts";
import { unavailable } from "./errors.ts";
import { handBackStreams, stepDown } from "./fleet/leadership.ts";
import { LeaseKeeper } from "./fleet/lease-keeper.ts";
import { Fleet, type Member } from "./fleet/members.ts";
import { Peers } from "./fleet/peers.ts";
import { CatalogSweep } from "./lifecycle/catalog-sweep.ts";
import { StreamUses } from "./lifecycle/expiry.ts";
import { retentionRound } from "./lifecycle/retention-round.ts";
import { DEFAULT_LIMITS, type StarLimits } from "./limits.ts";
import { ProducerBudget } from "./producers/producer-table.ts";
import { guardAppends } from "./service/append-guard.ts";
import { dataPlaneHandlers } from "./service/dataplane.ts";
import { InProcessServer } from "./service/in-process.ts";
import { RunningCalls } from "./service/running-calls.ts";
import { settleStar, starStats } from "./service/settle-star.ts";
import { unary } from "./service/unary.ts";
import { Catalog } from "./storage/catalog.ts";
import { ChunkStore } from "./storage/chunk-store.ts";
import { countingStore } from "./storage/counting-store.ts";
import { firstLogNumber } from "./storage/keys.ts";
import { Followers } from "./stream/follower-view.ts";
import { StreamRegistry } from "./stream/registry.ts";
import { CommitLog } from "./wal/commit-log.ts";
import { LogReader } from "./wal/log-objects.ts";
import { replayLog } from "./wal/replay.ts";
import { Settler } from "./wal/settler.ts";

export interface StarOptions {
  id: string;
  /** HOST:PORT; port 0 picks a free one. */
  listen: string;
  store: ObjectStore;
  limits?: Partial<StarLimits>;
  logger?: Logger;
  /** How often age and size retention run. */
  retentionIntervalMs?: number;
  /** A signing key turns auth on (docs/auth.md); without one every verb is open. */
  auth?: AuthConfig;
  /** Every member of the fleet, this star (`id`) among them; absent: a fleet of one. */
  fleet?: readonly Member[];
  /** Default: presigned URLs good for 15 minutes. */
  readPlan?: Partial<ReadPlanOptions>;
}

export interface RunningStar {
  readonly id: string;
  /** HOST:PORT actually bound. */
  readonly address: string;
  /** Its caches and buffers with the memory each holds (also in StarStats). */
  readonly memory: MemoryParts;
  /** Its unary calls for a gateway in this process, without the connection. */
  readonly inProcess: InProcessStar;
  close(): Promise<void>;
}

export async function startStar(options: StarOptions): Promise<RunningStar> {
  const log = options.logger ?? pino({ level: "silent" });
  const limits = { ...DEFAULT_LIMITS, ...options.limits };
  let fleet = options.fleet
    ? new Fleet(options.id, options.fleet)
    : Fleet.single(options.id, options.listen);
  // In a fleet of several, leases say who leads what (docs/fleet.md, "Leases").
  const leased = fleet.size > 1;
  const { store, counts } = countingStore(options.store);
  // A fleet of one is the only writer of its descriptors: its cache never goes stale.
  const catalog = new Catalog(store, {
    ttlMs: leased ? limits.descriptorTtlMs : Number.POSITIVE_INFINITY,
  });
  const chunks = new ChunkStore(store, limits.chunkCacheBytes);
  let keeper: LeaseKeeper | undefined;
  // A member of a fleet of several writes, and is ready, while it holds its lease (docs/fleet.md).
  const holdsLease = () => keeper?.holds ?? true;
  const wal = new CommitLog(store, options.id, {
    commitIntervalMs: limits.logCommitIntervalMs,
    maxObjectBytes: limits.logObjectMaxBytes,
    maxPutsInFlight: limits.logPutsInFlight,
    onFenced: (by) => keeper?.lost(`was taken over by ${by}`),
  });
  const logs = new LogReader(store, limits.logPutsInFlight, log);
  // Before a stream is opened: what the last run acked and had not settled goes into chunks.
  // Started at once; a failure (storage down) is retried by the next open. In a fleet of
  // several, the lease keeper replays when it joins, and a stream opens once it may lead.
  let replaying: Promise<void> | undefined;
  const replayedAlone = () => {
    replaying ??= replayLog(
      store,
      logs,
      catalog,
      chunks,
      options.id,
      limits.settleChunkBytes,
      log,
    ).then(
      (r) => wal.begin(r.next),
      (err: unknown) => {
        replaying = undefined;
        throw err;
      },
    );
    return replaying;
  };
  const replayed = leased ? () => (keeper as LeaseKeeper).whenReady(limits.leaseMs) : replayedAlone;
  if (!leased) {
    replayedAlone().catch((err: unknown) =>
      log.warn({ err }, "log replay failed; retried on first use"),
    );
  }
  const producerBudget = new ProducerBudget(limits.producerMemoryBytes);
  const appendBudget = new AppendBudget(limits.appendsInFlightBytes);
  const registry = new StreamRegistry(
    catalog,
    chunks,
    {
      throughputMaxWaitMs: limits.throughputMaxWaitMs,
      wal,
      settleChunkBytes: limits.settleChunkBytes,
      maxOpen: limits.maxOpenStreams,
      appendBudget,
      holdsLease,
      producers: {
        ttlMs: limits.producerTtlMs,
        maxPerStream: limits.maxProducersPerStream,
        budget: producerBudget,
      },
    },
    replayed,
  );
  const settler = new Settler(
    registry,
    wal,
    {
      chunkBytes: limits.settleChunkBytes,
      maxAgeMs: limits.settleMaxAgeMs,
      maxUnsettledBytes: limits.maxUnsettledBytes,
    },
    log,
  );
  const memory = new MemoryParts();
  memory.add(
    "unsettled",
    () => registry.unsettledMemory,
    () => limits.maxUnsettledBytes,
  );
  memory.add(
    "appends_in_flight",
    () => appendBudget.held,
    () => appendBudget.maxBytes,
  );
  memory.add(
    "producers",
    () => producerBudget.bytes,
    () => producerBudget.maxBytes,
  );
  memory.add(
    "chunk_cache",
    () => chunks.cacheBytes,
    () => limits.chunkCacheBytes,
  );
  const peers = new Peers();
  const tasks = new Set<Promise<void>>();
  const ctx: StarContext = {
    id: options.id,
    catalog,
    chunks,
    registry,
    wal,
    settler,
    logs,
    storeCounts: counts,
    memory,
    locks: new KeyTurns(),
    limits,
    log,
    now: Date.now,
    auth: options.auth && new StarAuth(options.auth),
    get fleet() {
      return fleet;
    },
    peers,
    followers: new Followers(chunks, catalog, limits.followerViews),
    readPlan: { urls: "presigned", ttlSeconds: 900, ...options.readPlan },
    uses: new StreamUses(Date.now()),
    calls: new RunningCalls(),
    appendSessions: { active: 0 },
    lease: undefined,
    background(what, work) {
      const task = work().catch((err: unknown) =>
        log.warn({ err, what }, "background task failed"),
      );
      tasks.add(task);
      void task.finally(() => tasks.delete(task));
    },
  };

  if (leased) {
    keeper = new LeaseKeeper({
      store,
      self: options.id,
      members: fleet.members.map((m) => m.name),
      leaseMs: limits.leaseMs,
      logPutsInFlight: limits.logPutsInFlight,
      log,
      replay: async (member, epoch) => {
        await replayLog(store, logs, catalog, chunks, member, limits.settleChunkBytes, log, epoch);
      },
      begin: (epoch) => wal.begin(firstLogNumber(epoch)),
      onView: (view) => {
        fleet.setView(view);
        log.info({ view }, "fleet view changed");
      },
      handBack: (member) => handBackStreams(ctx, member),
      onLost: (reason) => void stepDown(ctx, reason),
    });
    ctx.lease = keeper;
    keeper.start();
  }

  const server = new grpc.Server(NOVA_CHANNEL_OPTIONS);
  const inProcess = new InProcessServer();
  const dataPlane = dataPlaneHandlers(ctx);
  const adminPlane = guardAdminHandlers(ctx.auth, {
    Health: unary(ctx, async () => {
      await options.store.list("meta/", { limit: 1 });
      return {
        star_id: options.id,
        ready: holdsLease(),
        members: fleet.describe(),
        leading: leased ? fleet.view : [],
      };
    }),
    SettleStar: unary(ctx, () => settleStar(ctx)),
    StarStats: unary(ctx, () => starStats(ctx)),
  });
  const dataPlaneService = guardAppends(nova.DataPlaneService.service);
  server.addService(dataPlaneService, dataPlane);
  server.addService(nova.AdminPlaneService.service, adminPlane);
  inProcess.add(dataPlaneService, dataPlane);
  inProcess.add(nova.AdminPlaneService.service, adminPlane);
  const port = await new Promise<number>((resolve, reject) => {
    server.bindAsync(options.listen, grpc.ServerCredentials.createInsecure(), (err, p) =>
      err ? reject(err) : resolve(p),
    );
  });
  const host = options.listen.slice(0, options.listen.lastIndexOf(":"));
  if (!options.fleet) fleet = Fleet.single(options.id, `${host}:${port}`);

  const retain = unlessRunning(() => retentionRound(ctx));
  // Beside the rounds, never in their way: a batch of the catalog's streams a round's time.
  const catalogSweep = new CatalogSweep();
  const sweep = unlessRunning(() => catalogSweep.round(ctx));
  const retention = setInterval(() => {
    if (!holdsLease()) return;
    ctx.background("retention", retain);
    if (!catalogSweep.done) ctx.background("retention sweep", sweep);
  }, options.retentionIntervalMs ?? 5_000);
  retention.unref();
  const settling = setInterval(() => {
    if (!holdsLease()) return;
    ctx.background("settling", settler.round);
  }, limits.settleIntervalMs);
  settling.unref();

  return {
    id: options.id,
    address: `${host}:${port}`,
    memory,
    inProcess,
    async close() {
      const inProcessEnded = inProcess.close();
      keeper?.close();
      clearInterval(retention);
      clearInterval(settling);
      ctx.followers.close();
      await registry.closeAll(
        unavailable(`star ${options.id} is shutting down; reconnect elsewhere`),
      );
      await new Promise<void>((resolve) => {
        const force = setTimeout(() => {
          ctx.calls.endAll(unavailable(`star ${options.id} is shutting down; retry elsewhere`));
          inProcess.cancelAll();
          // The answers just given go out before the connections are cut.
          setImmediate(() => {
            server.forceShutdown();
            resolve();
          });
        }, limits.shutdownGraceMs);
        server.tryShutdown(() => {
          void inProcessEnded.then(() => {
            clearTimeout(force);
            resolve();
          });
        });
      });
      await Promise.allSettled(tasks);
      peers.close();
    },
  };
}
