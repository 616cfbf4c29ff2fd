// HAProxy from Debian in front of two gateway processes, sending them traffic as cleartext
// HTTP/2 (h2c: `proto h2`, which speaks nothing else, so any answer means h2c works); its health
// checks use HTTP/1.1 on the same port. Clients speak HTTP/1.1 to HAProxy. SSE subscribers and producers go through
// it while one gateway restarts gracefully: its h2 sessions get GOAWAY, requests in flight
// finish, and clients see no error, no gap, no duplicate.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { type GatewayProcess, gatewayProcess } from "../harness/gateway-process.ts";
import { drainOut, type Haproxy, startHaproxy } from "../harness/haproxy.ts";
import { newStream } from "../harness/http.ts";
import { freePort } from "../harness/ports.ts";
import { startRestartTraffic } from "../harness/restart-traffic.ts";
import { type StarProcess, startStarProcess } from "../harness/star-process.ts";
import { systemTool } from "../harness/system-tool.ts";
import { waitFor } from "../harness/wait.ts";

const haproxyTool = systemTool("/usr/sbin/haproxy", "haproxy");
const skip = haproxyTool.skip;
// The drain delay is only an upper bound: drainOut ends it once HAProxy has taken the gateway out.
const DRAIN_FLAGS = ["--drain-delay-ms", "60000", "--drain-grace-ms", "10000"];

describe("behind HAProxy speaking h2c", { skip }, () => {
  let dir: string | undefined;
  let star: StarProcess | undefined;
  const ports: number[] = [];
  const gateways: (GatewayProcess | undefined)[] = [];
  let lb: Haproxy | undefined;

  const startGateway = async (i: number) => {
    gateways[i] = await gatewayProcess(
      [(star as StarProcess).address],
      ["--port", String(ports[i]), ...DRAIN_FLAGS],
    );
  };

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), "nova-lb-h2c-"));
    star = await startStarProcess(["--data-dir", dir]);
    ports.push(await freePort(), await freePort());
    await Promise.all([startGateway(0), startGateway(1)]);
    lb = await startHaproxy(haproxyTool, { servers: ports, timeoutMs: 30_000, dir, h2c: true });
    await lb.waitFor("g0", "UP");
    await lb.waitFor("g1", "UP");
  });
  after(async () => {
    await lb?.close();
    // SIGINT skips the drain delay: nothing is in front of them any more.
    for (const gw of gateways) await gw?.proc.kill("SIGINT");
    star?.client.close();
    await star?.proc.kill("SIGTERM");
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  test("SSE and appends through it, across a graceful restart of a gateway", async () => {
    const base = (lb as Haproxy).base;
    const stream = await newStream(base);
    const traffic = startRestartTraffic(base, stream, { followers: 4, producers: 8, pauseMs: 25 });
    try {
      try {
        await waitFor(() => traffic.acked >= 200, { message: "appends before the restart" });
        await drainOut(lb as Haproxy, "g0", gateways[0] as GatewayProcess, traffic);
        await startGateway(0);
        await (lb as Haproxy).waitFor("g0", "UP");
        const restarted = traffic.acked;
        await waitFor(() => traffic.acked >= restarted + 200, { message: "appends after it" });
      } finally {
        await traffic.stopProducers();
      }
      await traffic.check();
    } finally {
      // Followers left open would keep this file's process alive after a failure.
      traffic.close();
    }
  });
});
