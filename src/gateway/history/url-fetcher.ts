// GETs of presigned chunk URLs over undici: one Pool per origin with a bounded number of
// connections (requests beyond it queue), header and idle-body timeouts, and bodies read into
// a buffer of exactly the size the plan announced, never more. undici (about a hundred modules)
// loads with the first fetch, not with the gateway.
import type { Pool } from "undici";
import { ChunkFault, statusFault, transportFault } from "./faults.ts";

export interface UrlFetcherOptions {
  /** Connections per origin. */
  connections: number;
  /** Bounds connecting, waiting for the response headers, and each idle gap in the body. */
  timeoutMs: number;
  /** Origins with a pool kept open; the least recently used one is closed beyond it. */
  maxOrigins?: number;
}

export interface UrlFetcher {
  /**
   * The whole object at `url`, which must be exactly `size` bytes, read into memory from
   * `allocate` (fresh memory by default).
   */
  get(
    url: string,
    size: number,
    signal: AbortSignal,
    allocate?: (size: number) => Buffer,
  ): Promise<Buffer>;
  close(): Promise<void>;
}

export function createUrlFetcher(opts: UrlFetcherOptions): UrlFetcher {
  const pools = new Map<string, Pool>();
  const maxOrigins = opts.maxOrigins ?? 16;

  const poolFor = async (origin: string): Promise<Pool> => {
    let pool = pools.get(origin);
    if (pool) {
      pools.delete(origin);
      pools.set(origin, pool);
      return pool;
    }
    const { Pool } = await import("undici");
    // Another fetch to the same origin may have made it meanwhile.
    pool = pools.get(origin);
    if (pool) return pool;
    pool = new Pool(origin, {
      connections: opts.connections,
      headersTimeout: opts.timeoutMs,
      bodyTimeout: opts.timeoutMs,
      connect: { timeout: opts.timeoutMs },
    });
    pools.set(origin, pool);
    for (const [name, old] of pools) {
      if (pools.size <= maxOrigins) break;
      pools.delete(name);
      void old.close();
    }
    return pool;
  };

  return {
    async get(url, size, signal, allocate = Buffer.allocUnsafe) {
      const u = new URL(url);
      // The message names the object, never the signature in the query string.
      const what = `GET ${u.origin}${u.pathname}`;
      let res: Awaited<ReturnType<Pool["request"]>>;
      try {
        res = await (await poolFor(u.origin)).request({
          method: "GET",
          path: `${u.pathname}${u.search}`,
          signal,
        });
      } catch (err) {
        if (signal.aborted) throw err;
        throw transportFault(err, what);
      }
      if (res.statusCode !== 200) {
        await res.body.dump().catch(() => undefined);
        throw statusFault(res.statusCode, what);
      }
      const out = allocate(size);
      let got = 0;
      try {
        for await (const piece of res.body) {
          const chunk = piece as Buffer;
          if (got + chunk.length > size) {
            res.body.destroy();
            throw new ChunkFault("corrupt", `${what}: more than the ${size} bytes the plan says`);
          }
          chunk.copy(out, got);
          got += chunk.length;
        }
      } catch (err) {
        if (signal.aborted || err instanceof ChunkFault) throw err;
        throw transportFault(err, what);
      }
      if (got !== size) {
        throw new ChunkFault("corrupt", `${what}: ${got} bytes, the plan says ${size}`);
      }
      return out;
    },
    async close() {
      const all = [...pools.values()];
      pools.clear();
      await Promise.all(all.map((p) => p.close()));
    },
  };
}
