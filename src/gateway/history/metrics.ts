// /metrics for reads served from object storage: chunk fetches by outcome, bytes fetched, cache
// hits, records by the path that served them, and every fallback to the star by reason.
import { Counter, type Registry } from "prom-client";
import type { MemoryParts } from "../../platform/memory/index.ts";

export interface ReadPlanMetrics {
  fetches: Counter<"source" | "outcome">;
  fetchedBytes: Counter<"source">;
  cacheHits: Counter<"kind">;
  records: Counter<"source">;
  fallbacks: Counter<"reason">;
  /** Where the chunk cache and its idle memory report what they hold. */
  memory: MemoryParts;
}

export function createReadPlanMetrics(registry: Registry, memory: MemoryParts): ReadPlanMetrics {
  return {
    memory,
    fetches: new Counter({
      name: "nova_gateway_readplan_chunk_fetches_total",
      help: "chunk objects fetched from object storage, by source (url, s3) and outcome",
      labelNames: ["source", "outcome"],
      registers: [registry],
    }),
    fetchedBytes: new Counter({
      name: "nova_gateway_readplan_fetched_bytes_total",
      help: "bytes of chunk objects fetched from object storage",
      labelNames: ["source"],
      registers: [registry],
    }),
    cacheHits: new Counter({
      name: "nova_gateway_readplan_cache_hits_total",
      help: "chunks served without a fetch: cached (hit) or joining a fetch in flight (shared)",
      labelNames: ["kind"],
      registers: [registry],
    }),
    records: new Counter({
      name: "nova_gateway_readplan_records_total",
      help: "records of plan-driven reads, by what served them (objstore, star)",
      labelNames: ["source"],
      registers: [registry],
    }),
    fallbacks: new Counter({
      name: "nova_gateway_readplan_fallbacks_total",
      help: "ranges read through the star instead of object storage, by reason",
      labelNames: ["reason"],
      registers: [registry],
    }),
  };
}
