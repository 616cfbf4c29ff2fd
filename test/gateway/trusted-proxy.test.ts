// Clients behind a load balancer told apart, with HAProxy from Debian in front of a gateway that
// trusts it (--trust-proxy 127.0.0.1) and gives each client 2 sessions
// (--max-sessions-per-client 2): in `mode http` with `option forwardfor`, in `mode http` writing
// RFC 7239's Forwarded (--forwarded-header=forwarded), and in `mode tcp` with `send-proxy-v2`
// (--proxy-protocol). Clients on 127.0.0.2 and 127.0.0.3 connect through HAProxy
// and get a share each; what a client claims (its own X-Forwarded-For, its own PROXY header)
// changes nothing, and a client that connects directly is counted by its own address.
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { Agent } from "undici";
import { type GatewayProcess, gatewayProcess } from "../harness/gateway-process.ts";
import { useGlobalDispatcher } from "../harness/global-dispatcher.ts";
import { type Haproxy, type HaproxyOptions, startHaproxy } from "../harness/haproxy.ts";
import { newStream } from "../harness/http.ts";
import { freePort } from "../harness/ports.ts";
import { openRaw } from "../harness/raw-socket.ts";
import { type StarProcess, startStarProcess } from "../harness/star-process.ts";
import { systemTool } from "../harness/system-tool.ts";
import { selfSignedCert } from "../harness/tls.ts";
import { waitFor } from "../harness/wait.ts";
import { openSse, readUntil, type SseResponse } from "./sse-client.ts";

const haproxyTool = systemTool("/usr/sbin/haproxy", "haproxy");
const opensslTool = systemTool("/usr/bin/openssl", "openssl");
const SHARE = 2;

/**
 * A star, a gateway with `flags` and HAProxy with `lbOptions` in front, for one describe; with
 * `tls`, the gateway serves TLS (a self-signed certificate) that HAProxy passes through.
 */
function behindHaproxy(flags: string[], lbOptions: Partial<HaproxyOptions>, tls = false) {
  const setup = {} as { gw: GatewayProcess; lb: Haproxy; stream: string };
  let dir: string | undefined;
  let star: StarProcess | undefined;
  let restoreDispatcher: (() => void) | undefined;
  const agents: Agent[] = [];
  const open: SseResponse[] = [];
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), "nova-trust-proxy-"));
    star = await startStarProcess(["--data-dir", dir]);
    const port = await freePort();
    const cert = tls ? await selfSignedCert(opensslTool, dir) : undefined;
    setup.gw = await gatewayProcess(
      [star.address],
      [
        ...["--port", String(port), "--trust-proxy", "127.0.0.1"],
        ...["--max-sessions-per-client", String(SHARE), ...flags],
        ...(cert ? ["--tls-cert", cert.certFile, "--tls-key", cert.keyFile] : []),
      ],
    );
    setup.lb = await startHaproxy(haproxyTool, {
      servers: [port],
      timeoutMs: 30_000,
      dir,
      ...lbOptions,
      ...(tls ? { tlsServers: true } : {}),
    });
    if (tls) setup.lb.base = setup.lb.base.replace(/^http:/, "https:");
    await setup.lb.waitFor("g0", "UP");
    // The test's own requests accept the self-signed certificate too (until the suite ends: other
    // files may share this process, scripts/file-bundle.ts).
    if (tls) {
      restoreDispatcher = useGlobalDispatcher(
        new Agent({ connect: { rejectUnauthorized: false } }),
      );
    }
    setup.stream = await newStream(setup.lb.base);
  });
  after(async () => {
    restoreDispatcher?.();
    for (const s of open) s.close();
    await Promise.all(agents.map((a) => a.close()));
    await setup.lb?.close();
    await setup.gw?.proc.kill("SIGINT");
    star?.client.close();
    await star?.proc.kill("SIGTERM");
    if (dir) await rm(dir, { recursive: true, force: true });
  });
  const from = (localAddress: string) => {
    const agent = new Agent({
      connections: null,
      pipelining: 0,
      localAddress,
      ...(tls ? { connect: { rejectUnauthorized: false } } : {}),
    });
    agents.push(agent);
    return agent;
  };
  /** An SSE subscription through `base` from `agent`: its status, once its first event came. */
  const subscribe = async (base: string, agent: Agent, headers: Record<string, string> = {}) => {
    const sse = await openSse(`${base}${setup.stream}/records`, headers, agent);
    open.push(sse);
    if (sse.status === 200) await readUntil(sse.events, (seen) => seen.length > 0);
    return sse.status;
  };
  /** Two clients through the balancer get a share each. */
  const sharesThroughBalancer = async (headers: Record<string, string> = {}) => {
    for (const address of ["127.0.0.2", "127.0.0.3"]) {
      const agent = from(address);
      for (let i = 0; i < SHARE; i++) {
        assert.equal(await subscribe(setup.lb.base, agent, headers), 200, address);
      }
      assert.equal(
        await subscribe(setup.lb.base, agent, headers),
        429,
        `${address}: past its share`,
      );
    }
  };
  return { setup, from, subscribe, sharesThroughBalancer };
}

describe("HAProxy in mode http with option forwardfor", { skip: haproxyTool.skip }, () => {
  const { setup, from, subscribe, sharesThroughBalancer } = behindHaproxy([], { forwardFor: true });

  test("two clients through the balancer get a share each; a made-up X-Forwarded-For changes nothing", async () => {
    await sharesThroughBalancer({ "x-forwarded-for": "127.0.0.9" });
  });

  test("a client connecting directly is counted by its own address, whatever its X-Forwarded-For", async () => {
    const agent = from("127.0.0.4");
    const spoof = { "x-forwarded-for": "127.0.0.5" };
    for (let i = 0; i < SHARE; i++) assert.equal(await subscribe(setup.gw.base, agent, spoof), 200);
    assert.equal(await subscribe(setup.gw.base, agent, spoof), 429);
    assert.equal(await subscribe(setup.gw.base, from("127.0.0.5")), 200, "127.0.0.5's share");
  });
});

describe("HAProxy writing Forwarded, and --forwarded-header=forwarded", {
  skip: haproxyTool.skip,
}, () => {
  const { setup, from, subscribe, sharesThroughBalancer } = behindHaproxy(
    ["--forwarded-header", "forwarded"],
    { forwarded: true },
  );

  test("two clients through the balancer get a share each; made-up headers change nothing", async () => {
    // HAProxy replaces the Forwarded; the gateway drops the X-Forwarded-For it passes through.
    await sharesThroughBalancer({ "x-forwarded-for": "127.0.0.9", forwarded: "for=127.0.0.8" });
  });

  test("a client connecting directly is counted by its own address, whatever its Forwarded", async () => {
    const agent = from("127.0.0.4");
    const spoof = { forwarded: "for=127.0.0.5" };
    for (let i = 0; i < SHARE; i++) assert.equal(await subscribe(setup.gw.base, agent, spoof), 200);
    assert.equal(await subscribe(setup.gw.base, agent, spoof), 429);
    assert.equal(await subscribe(setup.gw.base, from("127.0.0.5")), 200, "127.0.0.5's share");
  });
});

describe("HAProxy in mode tcp with send-proxy-v2, and --proxy-protocol", {
  skip: haproxyTool.skip,
}, () => {
  const { setup, from, subscribe, sharesThroughBalancer } = behindHaproxy(["--proxy-protocol"], {
    proxyV2: true,
  });

  test("two clients through the balancer get a share each", async () => {
    await sharesThroughBalancer();
  });

  test("a client connecting directly is served as itself; with a PROXY header of its own, refused", async () => {
    assert.equal(await subscribe(setup.gw.base, from("127.0.0.4")), 200);
    const forged = await openRaw(setup.gw.base, "127.0.0.4");
    forged.socket.write(
      "PROXY TCP4 127.0.0.9 127.0.0.1 4000 80\r\nGET /livez HTTP/1.1\r\nhost: x\r\n\r\n",
    );
    await forged.closed;
    assert.equal(forged.text(), "", "closed unanswered");
  });

  test("a connection from the trusted balancer's address without a PROXY header is refused", async () => {
    const bare = await openRaw(setup.gw.base);
    bare.socket.write("GET /livez HTTP/1.1\r\nhost: x\r\n\r\n");
    await bare.closed;
    assert.equal(bare.text(), "", "closed unanswered");
  });

  test("a PROXY header naming no client (UNKNOWN) leaves X-Forwarded-For unbelieved: one share", async () => {
    // As a balancer in mode tcp sends for a client it took on a UNIX socket: the HTTP headers
    // are the client's own, so its X-Forwarded-For must not pick its share.
    const statuses: number[] = [];
    const conns = [];
    for (const forged of ["198.51.100.1", "198.51.100.2", "198.51.100.3"]) {
      const c = await openRaw(setup.gw.base);
      conns.push(c);
      c.socket.write(
        `PROXY UNKNOWN\r\nGET ${setup.stream}/records HTTP/1.1\r\nhost: x\r\n` +
          `accept: text/event-stream\r\nx-forwarded-for: ${forged}\r\n\r\n`,
      );
      const status = await waitFor(() => /^HTTP\/1\.1 (\d+)/.exec(c.text())?.[1], {
        message: "an answer",
      });
      statuses.push(Number(status));
    }
    for (const c of conns) c.socket.destroy();
    assert.deepEqual(statuses, [200, 200, 429]);
  });
});

describe("HAProxy in mode tcp with send-proxy-v2 in front of TLS, and --proxy-protocol", {
  skip: haproxyTool.skip ?? opensslTool.skip,
}, () => {
  const { setup, from, subscribe, sharesThroughBalancer } = behindHaproxy(
    ["--proxy-protocol"],
    { proxyV2: true },
    true,
  );

  test("two clients through the balancer get a share each, over TLS", async () => {
    assert.match(setup.lb.base, /^https:/);
    await sharesThroughBalancer();
  });

  test("a direct TLS client is served as itself; a PROXY header of its own is refused", async () => {
    assert.equal(await subscribe(setup.gw.base, from("127.0.0.4")), 200);
    const forged = await openRaw(setup.gw.base.replace(/^https:/, "http:"), "127.0.0.4");
    forged.socket.write("PROXY TCP4 127.0.0.9 127.0.0.1 4000 80\r\n");
    await forged.closed;
    assert.equal(forged.text(), "", "closed unanswered");
  });
});
