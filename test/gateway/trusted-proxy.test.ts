// Clients behind a load balancer told apart: HAProxy from Debian in `mode http` with
// `option forwardfor` in front of a gateway started with --trust-proxy 127.0.0.1 (HAProxy's
// address) and --max-sessions-per-client 2. Clients on 127.0.0.2 and 127.0.0.3 connect through
// HAProxy and get a share each; an X-Forwarded-For a client makes up changes nothing, and a
// client that connects directly is counted by its own address whatever its X-Forwarded-For says.
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { Agent } from "undici";
import { type GatewayProcess, gatewayProcess } from "../harness/gateway.ts";
import { type Haproxy, startHaproxy } from "../harness/haproxy.ts";
import { newStream } from "../harness/http.ts";
import { freePort } from "../harness/ports.ts";
import { type StarProcess, startStarProcess } from "../harness/star-process.ts";
import { systemTool } from "../harness/system-tool.ts";
import { openSse, readUntil, type SseResponse } from "./sse-client.ts";

const haproxyTool = systemTool("/usr/sbin/haproxy", "haproxy");
const SHARE = 2;

describe("behind HAProxy with option forwardfor, and --trust-proxy", {
  skip: haproxyTool.skip,
}, () => {
  let dir: string | undefined;
  let star: StarProcess | undefined;
  let gw: GatewayProcess | undefined;
  let lb: Haproxy | undefined;
  let stream: string;
  const agents: Agent[] = [];
  const open: SseResponse[] = [];

  const from = (localAddress: string) => {
    const agent = new Agent({ connections: null, pipelining: 0, localAddress });
    agents.push(agent);
    return agent;
  };
  /** An SSE subscription through `base`, open once its first event came. */
  const subscribe = async (base: string, agent: Agent, headers: Record<string, string> = {}) => {
    const sse = await openSse(`${base}${stream}/records`, headers, agent);
    open.push(sse);
    if (sse.status === 200) await readUntil(sse.events, (seen) => seen.length > 0);
    return sse.status;
  };

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), "nova-trust-proxy-"));
    star = await startStarProcess(["--data-dir", dir]);
    const port = await freePort();
    gw = await gatewayProcess(
      [star.address],
      [
        ...["--port", String(port), "--trust-proxy", "127.0.0.1"],
        ...["--max-sessions-per-client", String(SHARE)],
      ],
    );
    lb = await startHaproxy(haproxyTool, {
      servers: [port],
      timeoutMs: 30_000,
      dir,
      forwardFor: true,
    });
    await lb.waitFor("g0", "UP");
    stream = await newStream(gw.base);
  });
  after(async () => {
    for (const s of open) s.close();
    await Promise.all(agents.map((a) => a.close()));
    await lb?.close();
    await gw?.proc.kill("SIGINT");
    star?.client.close();
    await star?.proc.kill("SIGTERM");
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  test("two clients through the balancer get a share each; a made-up X-Forwarded-For changes nothing", async () => {
    const base = (lb as Haproxy).base;
    for (const address of ["127.0.0.2", "127.0.0.3"]) {
      const agent = from(address);
      for (let i = 0; i < SHARE; i++) assert.equal(await subscribe(base, agent), 200, address);
      assert.equal(await subscribe(base, agent), 429, `${address}: past its share`);
      assert.equal(
        await subscribe(base, agent, { "x-forwarded-for": "127.0.0.9" }),
        429,
        `${address}: its own X-Forwarded-For is not believed`,
      );
    }
  });

  test("a client connecting directly is counted by its own address, whatever its X-Forwarded-For", async () => {
    const agent = from("127.0.0.4");
    const spoof = { "x-forwarded-for": "127.0.0.5" };
    const base = (gw as GatewayProcess).base;
    for (let i = 0; i < SHARE; i++) assert.equal(await subscribe(base, agent, spoof), 200);
    assert.equal(await subscribe(base, agent, spoof), 429);
    assert.equal(await subscribe(base, from("127.0.0.5")), 200, "127.0.0.5's share is untouched");
  });
});
