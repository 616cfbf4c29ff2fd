// The library entry: one star serving nova.v1.DataPlaneService and AdminPlaneService over gRPC
// on an object store. The gateway's embedded mode and the star process both start it here.
import * as grpc from "@grpc/grpc-js";
import pino, { type Logger } from "pino";
import type { ObjectStore } from "../objstore/object-store.ts";
import { nova } from "../proto/load.ts";
import type { StarContext } from "./context.ts";
import { unavailable } from "./errors.ts";
import { KeyedLock } from "./keyed-lock.ts";
import { DEFAULT_LIMITS, type StarLimits } from "./limits.ts";
import { dataPlaneHandlers } from "./service/dataplane.ts";
import { unary } from "./service/unary.ts";
import { Catalog } from "./storage/catalog.ts";
import { ChunkStore } from "./storage/chunk-store.ts";
import { StreamRegistry } from "./stream/registry.ts";

/** Large enough for a 100 MiB batch with its framing. */
export const GRPC_MESSAGE_LIMIT = 128 * 1024 * 1024;

export interface StarOptions {
  id: string;
  /** HOST:PORT; port 0 picks a free one. */
  listen: string;
  store: ObjectStore;
  limits?: Partial<StarLimits>;
  logger?: Logger;
  /** How often age and size retention run. */
  retentionIntervalMs?: number;
}

export interface RunningStar {
  readonly id: string;
  /** HOST:PORT actually bound. */
  readonly address: string;
  close(): Promise<void>;
}

export async function startStar(options: StarOptions): Promise<RunningStar> {
  const log = options.logger ?? pino({ level: "silent" });
  const limits = { ...DEFAULT_LIMITS, ...options.limits };
  const catalog = new Catalog(options.store);
  const chunks = new ChunkStore(options.store, limits.chunkCacheBytes);
  const registry = new StreamRegistry(catalog, chunks);
  const tasks = new Set<Promise<void>>();
  const ctx: StarContext = {
    id: options.id,
    catalog,
    chunks,
    registry,
    locks: new KeyedLock(),
    limits,
    log,
    now: Date.now,
    background(what, work) {
      const task = work().catch((err: unknown) =>
        log.warn({ err, what }, "background task failed"),
      );
      tasks.add(task);
      void task.finally(() => tasks.delete(task));
    },
  };

  const server = new grpc.Server({
    "grpc.max_receive_message_length": GRPC_MESSAGE_LIMIT,
    "grpc.max_send_message_length": GRPC_MESSAGE_LIMIT,
    "grpc.keepalive_time_ms": 30_000,
    "grpc.keepalive_timeout_ms": 10_000,
    "grpc.keepalive_permit_without_calls": 1,
  });
  server.addService(nova.DataPlaneService.service, dataPlaneHandlers(ctx));
  server.addService(nova.AdminPlaneService.service, {
    Health: unary(async () => {
      await options.store.list("meta/", { limit: 1 });
      return { star_id: options.id, ready: true, members: [] };
    }),
  });
  const port = await new Promise<number>((resolve, reject) => {
    server.bindAsync(options.listen, grpc.ServerCredentials.createInsecure(), (err, p) =>
      err ? reject(err) : resolve(p),
    );
  });
  const host = options.listen.slice(0, options.listen.lastIndexOf(":"));

  const retention = setInterval(() => {
    ctx.background("retention", async () => {
      const now = BigInt(ctx.now());
      for (const stream of await registry.openLogs()) {
        const point = stream.retentionPoint(now);
        if (point > stream.trimPoint) await stream.trimTo(point);
        await stream.reclaim();
      }
    });
  }, options.retentionIntervalMs ?? 5_000);
  retention.unref();

  return {
    id: options.id,
    address: `${host}:${port}`,
    async close() {
      clearInterval(retention);
      await registry.closeAll(
        unavailable(`star ${options.id} is shutting down; reconnect elsewhere`),
      );
      await new Promise<void>((resolve) => {
        const force = setTimeout(() => {
          server.forceShutdown();
          resolve();
        }, 5_000);
        server.tryShutdown(() => {
          clearTimeout(force);
          resolve();
        });
      });
      await Promise.allSettled(tasks);
    },
  };
}
