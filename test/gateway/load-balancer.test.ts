// The gateway behind a real load balancer: HAProxy from Debian, health checks on /readyz,
// `timeout client` and `timeout server` of 10 s, two gateways over one star (the second with
// `--workers 2`: three processes behind one server line). The
// gateways' idle timers are set below the balancer's as a user would set them below theirs
// (--sse-ping-ms 3000, --max-wait-s 5), a third of the defaults' scale so the test is quick.
// - Idle SSE subscriptions live through 25 s (two and a half balancer timeouts) of silence,
//   never more than --sse-ping-ms without a byte, and a wait=60 long-poll gets the gateway's
//   empty 200, not HAProxy's 504.
// - Responses reach clients through HAProxy with a Keep-Alive hint below HAProxy's own
//   keep-alive timeout (HAProxy passes the header on).
// - A rolling graceful restart of both gateways, while 32 producers append (100 ms apart each) and
//   subscribers follow, shows clients no error: every append answered 200, every record seen
//   once, in order, by every subscriber. The cluster drains as the lone process does.
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { EventSource } from "eventsource";
import { request } from "undici";
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

const BALANCER_TIMEOUT_MS = 10_000;
const PING_MS = 3_000;
const SILENCE_MS = 25_000;
// Below the balancer's timeout, as docs/operating.md asks of --sse-ping-ms and --max-wait-s.
const IDLE_FLAGS = ["--sse-ping-ms", String(PING_MS), "--max-wait-s", "5"];
// The drain delay is only an upper bound: drainOut ends it once HAProxy has taken the gateway out.
const DRAIN_FLAGS = ["--drain-delay-ms", "60000", "--drain-grace-ms", "10000"];
const WORKERS = ["--workers", "2"];

describe("behind HAProxy", () => {
  let dir: string | undefined;
  let star: StarProcess | undefined;
  const ports: number[] = [];
  const gateways: (GatewayProcess | undefined)[] = [];
  let lb: Haproxy | undefined;

  const startGateway = async (i: number) => {
    gateways[i] = await gatewayProcess(
      [(star as StarProcess).address],
      ["--port", String(ports[i]), ...DRAIN_FLAGS, ...IDLE_FLAGS, ...(i === 1 ? WORKERS : [])],
    );
  };

  before(async () => {
    if (skip) return;
    dir = await mkdtemp(join(tmpdir(), "nova-lb-"));
    star = await startStarProcess(["--data-dir", dir]);
    ports.push(await freePort(), await freePort());
    await Promise.all([startGateway(0), startGateway(1)]);
    lb = await startHaproxy(haproxyTool, {
      servers: ports,
      timeoutMs: BALANCER_TIMEOUT_MS,
      dir,
    });
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

  test("idle SSE subscriptions outlive the balancer's timeout; a long-poll ends before it", {
    skip,
  }, async () => {
    const base = (lb as Haproxy).base;
    const stream = await newStream(base);
    const subscribers = Array.from({ length: 8 }, () => {
      const es = new EventSource(`${base}${stream}/records`);
      const state = { pings: [] as number[], errors: 0, opened: false };
      es.addEventListener("open", () => {
        state.opened = true;
      });
      es.addEventListener("ping", () => state.pings.push(Date.now()));
      es.addEventListener("error", () => state.errors++);
      return { es, state };
    });
    try {
      const started = Date.now();
      // Nothing is appended: the long-poll is answered by the gateway's cap, before HAProxy's
      // own timeout would answer 504 for it.
      const polled = await request(`${base}${stream}/records?wait=60`);
      const body = await polled.body.text();
      assert.equal(polled.statusCode, 200, body);
      assert.deepEqual(JSON.parse(body).records, []);

      await waitFor(() => Date.now() - started >= SILENCE_MS, {
        timeoutMs: SILENCE_MS + 15_000,
        intervalMs: 1000,
        message: `${SILENCE_MS} ms of silence`,
      });
      for (const [i, { es, state }] of subscribers.entries()) {
        assert.ok(state.opened, `subscriber ${i} opened`);
        assert.equal(state.errors, 0, `subscriber ${i} was cut (EventSource error)`);
        assert.equal(es.readyState, EventSource.OPEN, `subscriber ${i} is still open`);
        // The caught-up ping, then idle pings: never a silence as long as the balancer's timeout
        // (what would cut the stream). How close they keep to the ping interval is the
        // machine's to say, not the test's.
        const gaps = state.pings.slice(1).map((t, j) => t - (state.pings[j] as number));
        gaps.push(Date.now() - (state.pings.at(-1) ?? started));
        assert.ok(state.pings.length >= 3, `subscriber ${i}: ${state.pings.length} pings`);
        assert.ok(
          Math.max(...gaps) < BALANCER_TIMEOUT_MS,
          `subscriber ${i}: gaps ${gaps.join(", ")}`,
        );
      }
    } finally {
      for (const { es } of subscribers) es.close();
    }
  });

  test("through HAProxy, clients are told to close idle connections before HAProxy does", {
    skip,
  }, async () => {
    // HAProxy passes the gateway's Keep-Alive header on; its own `timeout http-keep-alive` is
    // 10 s (harness/haproxy.ts). A client keeping a connection idle past that would send on a
    // connection HAProxy is closing.
    const res = await request(`${(lb as Haproxy).base}/livez`);
    await res.body.text();
    const hint = /^timeout=(\d+)$/.exec(String(res.headers["keep-alive"]));
    assert.ok(hint, `keep-alive: ${res.headers["keep-alive"]}`);
    assert.ok(Number(hint[1]) * 1000 < 10_000, `keep-alive: ${res.headers["keep-alive"]}`);
  });

  test("a rolling graceful restart of both gateways shows clients no error, no gap, no duplicate", {
    skip,
  }, async () => {
    const base = (lb as Haproxy).base;
    const stream = await newStream(base);
    const traffic = startRestartTraffic(base, stream, {
      followers: 4,
      producers: 32,
      pauseMs: 100,
    });
    try {
      try {
        // Each once: the lone process, then the one with workers (every start is seconds of CPU).
        for (const i of [0, 1]) {
          const before = traffic.acked;
          await waitFor(() => traffic.acked >= before + 300, {
            message: "appends before a restart",
          });
          await drainOut(lb as Haproxy, `g${i}`, gateways[i] as GatewayProcess, traffic);
          await startGateway(i);
          await (lb as Haproxy).waitFor(`g${i}`, "UP");
        }
        const restarted = traffic.acked;
        await waitFor(() => traffic.acked >= restarted + 300, {
          message: "appends after the restarts",
        });
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
