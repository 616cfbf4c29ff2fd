// Prometheus metrics at /metrics: requests by route and status, request latency, upstream calls
// by verb and code, redirects followed, open Subscribe calls and sessions, slow consumers, subscription hubs. One
// registry per app, so tests can run several.
import type { FastifyInstance, FastifyRequest } from "fastify";
import fp from "fastify-plugin";
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from "prom-client";
import { MemoryParts } from "../../platform/memory/index.ts";
import { unavailable } from "../errors/index.ts";
import { createReadPlanMetrics, type ReadPlanMetrics } from "../history/index.ts";
import type { FleetObserver } from "../upstream/index.ts";
import { routeSchemas } from "./schemas/plain.gen.ts";

export interface GatewayMetrics {
  registry: Registry;
  upstreamCalls: Counter<"verb" | "code">;
  redirects: Counter<"verb">;
  /** Catch-up reads from object storage: fetches, cache hits, fallbacks to the star by reason. */
  readplan: ReadPlanMetrics;
  /** Subscribe calls open to stars: back to its baseline once clients are gone (no leaks). */
  upstreamSubscribes: Gauge;
  /** Long-lived HTTP sessions open: `sse`, `long_poll`, `ndjson`. */
  sessions: Gauge<"kind">;
  /** Sessions ended for not reading, by session kind (`sse`, `s2_sse`, `ds_sse`, `s2s_read`, ...). */
  slowConsumers: Counter<"kind">;
  /** Shared subscriptions: live hubs (one per stream followed), and the subscribers on them. */
  hubs: Gauge;
  hubSubscribers: Gauge;
  /** Subscribers that started on a hub's window (`hit`) or caught up on their own first. */
  hubJoins: Counter<"result">;
  /** Subscribers that fell out of a hub's window (read too slowly) and caught up on their own. */
  hubDetaches: Counter;
  /** Each cache and pool's memory held against its bound (docs/operating.md, "Memory"). */
  memory: MemoryParts;
  /**
   * The /metrics answer: this registry's, or under `--workers` the whole cluster's from the
   * primary (rejects when it cannot be had).
   */
  render: () => Promise<string>;
}

declare module "fastify" {
  interface FastifyInstance {
    metrics: GatewayMetrics;
    /** Counts a request answered where Fastify's hooks do not run (its refusals before routing). */
    requestEnded?: (req: FastifyRequest, status: number) => void;
  }
}

export function createMetrics(): GatewayMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const memory = new MemoryParts();
  for (const [name, help, pick] of [
    ["nova_gateway_memory_held_bytes", "memory held by each cache and pool", "held"],
    ["nova_gateway_memory_bound_bytes", "the most each cache and pool may hold", "bound"],
  ] as const) {
    new Gauge({
      name,
      help,
      labelNames: ["part"],
      registers: [registry],
      collect() {
        this.reset();
        for (const part of memory.snapshot()) this.set({ part: part.name }, part[pick]);
      },
    });
  }
  return {
    memory,
    registry,
    render: () => registry.metrics(),
    upstreamCalls: new Counter({
      name: "nova_gateway_upstream_calls_total",
      help: "gRPC calls to stars by verb and status code",
      labelNames: ["verb", "code"],
      registers: [registry],
    }),
    redirects: new Counter({
      name: "nova_gateway_redirects_total",
      help: "NotOwner redirects followed, by verb",
      labelNames: ["verb"],
      registers: [registry],
    }),
    readplan: createReadPlanMetrics(registry, memory),
    upstreamSubscribes: new Gauge({
      name: "nova_gateway_upstream_subscribe_calls",
      help: "Subscribe calls open to stars",
      registers: [registry],
    }),
    sessions: new Gauge({
      name: "nova_gateway_sessions",
      help: "Open SSE subscriptions, long-polls and NDJSON append sessions, by kind",
      labelNames: ["kind"],
      registers: [registry],
    }),
    slowConsumers: new Counter({
      name: "nova_gateway_slow_consumers_total",
      help: "Sessions ended for a client that read nothing for --slow-consumer-ms, by kind",
      labelNames: ["kind"],
      registers: [registry],
    }),
    hubs: new Gauge({
      name: "nova_gateway_hubs",
      help: "Live subscription hubs, one per stream followed",
      registers: [registry],
    }),
    hubSubscribers: new Gauge({
      name: "nova_gateway_hub_subscribers",
      help: "SSE and long-poll readers attached to a hub",
      registers: [registry],
    }),
    hubJoins: new Counter({
      name: "nova_gateway_hub_joins_total",
      help: "Readers that followed a hub from its window (hit) or caught up on their own first (miss)",
      labelNames: ["result"],
      registers: [registry],
    }),
    hubDetaches: new Counter({
      name: "nova_gateway_hub_detaches_total",
      help: "Readers that fell out of a hub's window and caught up on their own",
      registers: [registry],
    }),
  };
}

export const metricsPlugin = fp(async (app: FastifyInstance, opts: { metrics: GatewayMetrics }) => {
  const { registry } = opts.metrics;
  app.decorate("metrics", opts.metrics);
  const requests = new Counter({
    name: "nova_gateway_requests_total",
    help: "HTTP requests by route and status",
    labelNames: ["method", "route", "status"],
    registers: [registry],
  });
  const latency = new Histogram({
    name: "nova_gateway_request_duration_seconds",
    help: "HTTP request latency by route",
    labelNames: ["method", "route"],
    buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 60],
    registers: [registry],
  });
  const observe = (req: FastifyRequest, status: string, seconds: number) => {
    const route = req.routeOptions.url ?? "unmatched";
    requests.inc({ method: req.method, route, status });
    latency.observe({ method: req.method, route }, seconds);
  };
  app.addHook("onResponse", async (req, reply) => {
    observe(req, String(reply.statusCode), reply.elapsedTime / 1000);
  });
  app.decorate("requestEnded", (req: FastifyRequest, status: number) =>
    observe(req, String(status), 0),
  );
  // Fastify runs onResponse and logs "request completed" on the response's finish or error
  // only: a request whose connection ended first (its client left, as an SSE subscription
  // usually ends, or the gateway cut it) is counted and logged here. Its status is what it had
  // sent, or 499 (nginx's "client closed request") when nothing was.
  app.addHook("onRequest", async (req, reply) => {
    const res = reply.raw;
    res.once("close", () => {
      if (res.writableFinished || res.errored) return;
      const status = res.headersSent ? String(res.statusCode) : "499";
      observe(req, status, reply.elapsedTime / 1000);
      reply.log.info(
        { req, res: { statusCode: Number(status) }, responseTime: reply.elapsedTime },
        "request ended before its response did",
      );
    });
  });
  app.get(
    "/metrics",
    { config: { alwaysAnswers: true }, schema: routeSchemas.metrics },
    async (_req, reply) => {
      const text = await opts.metrics.render().catch((err: Error) => {
        throw unavailable(`metrics: ${err.message}`);
      });
      reply.type(registry.contentType);
      return text;
    },
  );
});

/** The fleet client's observer, feeding upstream calls and redirects into these metrics. */
export function metricsObserver(metrics: GatewayMetrics): FleetObserver {
  return {
    onCall: (method, code) => metrics.upstreamCalls.inc({ verb: method, code }),
    onRedirect: (method) => metrics.redirects.inc({ verb: method }),
  };
}
