// HAProxy (Debian's package) in front of gateways, as users run it: HTTP mode, health checks on
// /readyz, `timeout client` and `timeout server` as given, and a stats page whose CSV says which
// servers are up. Started in the foreground by the test and stopped with it.
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { request } from "undici";
import type { GatewayProcess } from "./gateway-process.ts";
import { freePort } from "./ports.ts";
import { type RunningProcess, startProcess } from "./process.ts";
import type { SystemTool } from "./system-tool.ts";
import { waitFor } from "./wait.ts";

export interface HaproxyOptions {
  /** The gateways' ports on 127.0.0.1, servers g0, g1, ... */
  servers: number[];
  timeoutMs: number;
  dir: string;
  /**
   * Send traffic to the gateways as cleartext HTTP/2 (h2c) on their HTTP/1.1 port; health checks
   * stay HTTP/1.1 (HAProxy 2.6's h2 checks fail with "Socket error" against any h2c server).
   */
  h2c?: boolean;
  /** `option forwardfor`: each request to a gateway says whom it came from in X-Forwarded-For. */
  forwardFor?: boolean;
  /**
   * Each request to a gateway says whom it came from in RFC 7239's Forwarded (`for=`), replacing
   * any the client sent; X-Forwarded-For passes through as the client sent it.
   */
  forwarded?: boolean;
  /**
   * `mode tcp` with `send-proxy-v2`: each connection to a gateway opens with a PROXY v2 header
   * naming the client (health checks too: `check-send-proxy`).
   */
  proxyV2?: boolean;
  /** The gateways serve TLS: health checks speak it (mode tcp passes client TLS through). */
  tlsServers?: boolean;
}

export interface Haproxy {
  base: string;
  proc: RunningProcess;
  /** Each server's status as HAProxy sees it ("UP", "DOWN", ...), by name. */
  status(): Promise<Record<string, string>>;
  waitFor(server: string, state: "UP" | "DOWN"): Promise<void>;
  close(): Promise<void>;
}

export async function startHaproxy(tool: SystemTool, opts: HaproxyOptions): Promise<Haproxy> {
  const [port, statsPort] = [await freePort(), await freePort()];
  const config = `
global
  maxconn 4096

defaults
  mode ${opts.proxyV2 ? "tcp" : "http"}
  timeout connect 2s
  timeout client ${opts.timeoutMs}ms
  timeout server ${opts.timeoutMs}ms
  timeout http-keep-alive 10s

frontend gateways
  bind 127.0.0.1:${port}
  default_backend gateways

backend gateways
  balance roundrobin
${opts.forwardFor ? "  option forwardfor\n" : ""}${opts.forwarded ? '  http-request set-header Forwarded "for=%[src]"\n' : ""}  option httpchk
  http-check send meth GET uri /readyz
  http-check expect status 200
  # Checks run every 200 ms so the tests are quick; without this their timeout would be those
  # 200 ms too, and a gateway answering /readyz a little late on a loaded machine would be
  # marked down. Users' checks (inter 2s, as in the README) get 2 s the same way.
  timeout check 2s
${opts.servers.map((p, i) => `  server g${i} 127.0.0.1:${p} check inter 200ms fall 2 rise 2${opts.h2c ? " proto h2 check-proto h1" : ""}${opts.proxyV2 ? " send-proxy-v2 check-send-proxy" : ""}${opts.tlsServers ? " check-ssl verify none" : ""}`).join("\n")}

listen stats
  mode http
  bind 127.0.0.1:${statsPort}
  stats enable
  stats uri /stats
`;
  const file = join(opts.dir, "haproxy.cfg");
  await writeFile(file, config);
  // -c checks the file and says so on stdout; then the same process becomes HAProxy (-db: in
  // the foreground, logging to stderr).
  const proc = await startProcess({
    command: "/bin/sh",
    args: ["-c", `"$0" -c -f "$1" && echo ready && exec "$0" -db -f "$1"`, tool.path, file],
    readyLine: /^ready$/,
  });
  const status = async () => {
    const res = await request(`http://127.0.0.1:${statsPort}/stats;csv`);
    const rows = (await res.body.text()).split("\n").map((line) => line.split(","));
    return Object.fromEntries(
      rows
        .filter((r) => r[0] === "gateways" && /^g\d+$/.test(r[1] ?? ""))
        .map((r) => [r[1], r[17]]),
    ) as Record<string, string>;
  };
  const haproxy: Haproxy = {
    base: `http://127.0.0.1:${port}`,
    proc,
    status,
    async waitFor(server, state) {
      await waitFor(async () => (await status())[server]?.startsWith(state), {
        timeoutMs: 30_000,
        message: `HAProxy to see ${server} ${state}`,
      });
    },
    async close() {
      await proc.kill("SIGTERM");
    },
  };
  try {
    await waitFor(async () => Object.keys(await status()).length === opts.servers.length, {
      message: "HAProxy's stats page",
    });
  } catch (err) {
    await proc.kill("SIGTERM");
    throw err;
  }
  return haproxy;
}

/**
 * Stops a gateway behind the balancer as an orchestrator that watches the balancer would:
 * SIGTERM starts the drain (/readyz fails while the gateway serves on), HAProxy's checks take it
 * out, and a second SIGTERM then skips what is left of the drain delay. Its --drain-delay-ms is an
 * upper bound only, so no test depends on how fast the checks run on a loaded machine.
 *
 * The rest of the delay is what covers a request HAProxy routed to the gateway just before it
 * marked it down but had not written yet (a thread paused on a loaded machine): skipping it, the
 * gateway may close that idle connection under it. So the second SIGTERM waits for the traffic's
 * requests sent before then, the last that could have been routed there, to be answered.
 */
export async function drainOut(
  lb: Haproxy,
  server: string,
  gateway: GatewayProcess,
  traffic: { settled(): Promise<void> },
): Promise<void> {
  gateway.proc.child.kill("SIGTERM");
  await lb.waitFor(server, "DOWN");
  await traffic.settled();
  // Longer than its --drain-grace-ms, which a loaded machine may need to end its sessions.
  await gateway.proc.kill("SIGTERM", 30_000);
}
