// The gateway under test in this process: the app over the real fleet client, in front of the
// given stars (a gateway process: gateway-process.ts).
import pino from "pino";
import { type AppOptions, buildApp } from "../../src/gateway/app.ts";
import { createReadService, type ReadPlanSettings } from "../../src/gateway/history/index.ts";
import {
  createMetrics,
  type GatewayMetrics,
  metricsObserver,
} from "../../src/gateway/http/index.ts";
import { DEFAULT_READPLAN_SETTINGS } from "../../src/gateway/settings.ts";
import { FleetClient, fleetUpstream } from "../../src/gateway/upstream/index.ts";

export interface Gateway {
  base: string;
  metrics: GatewayMetrics;
  close(): Promise<void>;
}

export interface InProcessOptions extends Partial<AppOptions> {
  /**
   * Builds the read service here: settings over the defaults, or false (every read goes through
   * the stars). Unset: the app's own default read service.
   */
  readplan?: Partial<ReadPlanSettings> | false;
}

/** The gateway app in this process, over the fleet client, on `port` (0: a free one). */
export async function inProcessGateway(
  stars: string[],
  options: InProcessOptions = {},
  port = 0,
): Promise<Gateway> {
  const { readplan, ...appOptions } = options;
  const metrics = createMetrics();
  const fleet = new FleetClient({ stars, observer: metricsObserver(metrics) });
  const upstream = fleetUpstream(fleet);
  const reads =
    readplan === undefined
      ? undefined
      : createReadService({
          upstream,
          metrics: metrics.readplan,
          ...(readplan === false
            ? {}
            : { readplan: { ...DEFAULT_READPLAN_SETTINGS, ...readplan } }),
        });
  const app = await buildApp({
    upstream,
    ...(reads === undefined ? {} : { reads }),
    metrics,
    // Errors (a 5xx and its cause) on stderr, so a failing test in CI shows them.
    logger: pino(
      { level: process.env.TEST_GATEWAY_LOG ?? "error" },
      pino.destination({ fd: 2, sync: true }),
    ),
    bodyLimit: 4 * 1024 * 1024,
    inflightAppendBytes: 64 * 1024 * 1024,
    corsOrigins: [],
    ...appOptions,
  });
  // Fastify names the scheme after its own TLS option, which the gateway's listener does not use.
  const listening = await app.listen({ host: "127.0.0.1", port });
  const base = appOptions.tls ? listening.replace(/^http:/, "https:") : listening;
  return {
    base,
    metrics,
    async close() {
      await app.close();
      await reads?.close();
      fleet.close();
    },
  };
}
