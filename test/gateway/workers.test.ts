// `--workers 2` over real sockets: `npm start`'s entry as a primary with its embedded star and
// two gateway processes on one port. Connections are spread over both, each worker's hub serves
// its own subscribers, /metrics sums every process, a killed worker is replaced, a SIGTERM to
// the whole process group drains each worker once, a stop that comes while the workers start
// stops them too, a worker whose primary is killed drains before it exits, and a worker that
// cannot start fails the start.
import assert from "node:assert/strict";
import { readdirSync, readFileSync, readlinkSync } from "node:fs";
import { after, before, describe, test } from "node:test";
import { Client, request } from "undici";
import { embeddedGateway } from "../harness/gateway-process.ts";
import { append, http, newStream } from "../harness/http.ts";
import { scraped } from "../harness/metrics.ts";
import { nodeArgs, type RunningProcess, startProcess } from "../harness/process.ts";
import { tempDir } from "../harness/tmp.ts";
import { waitFor } from "../harness/wait.ts";
import { openSse, readUntil, recordsOf } from "./sse-client.ts";

// Longer than any check of the drain takes on a loaded machine; the test then hurries it (SIGINT).
const DRAIN_DELAY_MS = 60_000;

/** The processes the primary forked. */
function children(pid: number): number[] {
  const text = readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8").trim();
  return text === "" ? [] : text.split(" ").map(Number);
}

/** How many established TCP connections to `port` each process holds (IPv4 loopback). */
function connectionsByProcess(pids: number[], port: number): Map<number, number> {
  const hexPort = port.toString(16).toUpperCase().padStart(4, "0");
  const inodes = new Set(
    readFileSync("/proc/net/tcp", "utf8")
      .split("\n")
      .slice(1)
      .map((line) => line.trim().split(/\s+/))
      .filter((f) => f[1]?.endsWith(`:${hexPort}`) && f[3] === "01")
      .map((f) => f[9]),
  );
  return new Map(
    pids.map((pid) => {
      let held = 0;
      for (const fd of readdirSync(`/proc/${pid}/fd`)) {
        try {
          const m = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
          if (m && inodes.has(m[1])) held++;
        } catch {
          // closed since the listing
        }
      }
      return [pid, held];
    }),
  );
}

describe("a gateway with --workers 2", () => {
  let url: string;
  let port: number;
  let proc: RunningProcess;
  let workers: number[];
  const clients: Client[] = [];
  const cleanups: (() => Promise<void>)[] = [];

  before(async () => {
    const dir = await tempDir({ after: (fn) => void cleanups.push(fn) });
    ({ url, proc } = await embeddedGateway(dir, [
      "--workers",
      "2",
      "--drain-delay-ms",
      String(DRAIN_DELAY_MS),
    ]));
    port = Number(new URL(url).port);
    workers = children(proc.child.pid as number);
  });

  after(async () => {
    await Promise.all(clients.map((c) => c.close().catch(() => {})));
    await proc?.kill("SIGKILL");
    for (const fn of cleanups) await fn();
  });

  /** `n` connections of their own, each with one request answered on it. */
  async function connect(n: number): Promise<Client[]> {
    const opened = Array.from({ length: n }, () => new Client(url));
    clients.push(...opened);
    for (const c of opened) {
      const res = await c.request({ path: "/livez", method: "GET" });
      assert.equal(res.statusCode, 200);
      await res.body.text();
    }
    return opened;
  }

  test("prints one ready line, forks two workers, and spreads connections over both", async () => {
    assert.equal(proc.stdoutLines().filter((l) => l.includes("listening on")).length, 1);
    assert.equal(workers.length, 2);
    await connect(8);
    const held = connectionsByProcess(workers, port);
    for (const pid of workers) assert.ok((held.get(pid) ?? 0) >= 1, `worker ${pid}: ${[...held]}`);
    assert.equal([...held.values()].reduce((a, b) => a + b, 0) >= 8, true);
  });

  test("subscribers on either worker get every record, in order, once", async () => {
    const stream = await newStream(url);
    const subs = await Promise.all(
      Array.from({ length: 6 }, () => openSse(`${url}${stream}/records?seq_num=0`)),
    );
    try {
      for (const sub of subs) assert.equal(sub.status, 200);
      const held = connectionsByProcess(workers, port);
      for (const pid of workers) assert.ok((held.get(pid) ?? 0) >= 1);
      for (let i = 0; i < 3; i++) await append(url, stream, [`a${i}`, `b${i}`]);
      const want = [0, 1, 2, 3, 4, 5].map((n) => [n, `${n % 2 ? "b" : "a"}${n >> 1}`]);
      for (const sub of subs) {
        const events = await readUntil(sub.events, (seen) => recordsOf(seen).length >= 6);
        assert.deepEqual(recordsOf(events), want);
      }
    } finally {
      for (const sub of subs) sub.close();
    }
  });

  test("/metrics sums the workers' and the primary's metrics", async () => {
    const before = scraped(
      (await http(url, "GET", "/metrics")).text,
      "nova_gateway_requests_total",
      {
        route: "/v1/buckets",
        method: "GET",
      },
    );
    for (const c of await connect(6)) {
      const res = await c.request({ path: "/v1/buckets", method: "GET" });
      assert.equal(res.statusCode, 200);
      await res.body.text();
    }
    const page = (await http(url, "GET", "/metrics")).text;
    const requests = scraped(page, "nova_gateway_requests_total", {
      route: "/v1/buckets",
      method: "GET",
    });
    assert.equal(requests - before, 6);
    // The embedded star lives in the primary: its parts are in the sum.
    assert.match(page, /^nova_gateway_memory_bound_bytes\{part="star_unsettled"\} [1-9]/m);
  });

  test("a worker killed is replaced, and the port keeps serving", async () => {
    const [victim, survivor] = workers as [number, number];
    process.kill(victim, "SIGKILL");
    const replaced = await waitFor(
      () => {
        const now = children(proc.child.pid as number);
        return now.length === 2 && !now.includes(victim) && now;
      },
      // A replacement loads the gateway's code while the suite loads the machine.
      { timeoutMs: 30_000, message: "a replacement worker" },
    );
    assert.ok(replaced.includes(survivor));
    workers = replaced;
    await waitFor(
      async () => {
        for (const c of await connect(4)) {
          const res = await c.request({ path: "/livez", method: "GET" });
          await res.body.text();
          if (res.statusCode !== 200) return false;
        }
        return (
          (connectionsByProcess(workers, port).get(
            replaced.find((p) => p !== survivor) as number,
          ) ?? 0) > 0
        );
      },
      { timeoutMs: 30_000, message: "the replacement serving connections" },
    );
    const res = await http(url, "GET", "/readyz");
    assert.equal(res.status, 200, res.text);
  });

  test("every worker killed at once: the replacements serve the port the first ones bound", async () => {
    const before = workers;
    for (const pid of before) process.kill(pid, "SIGKILL");
    workers = await waitFor(
      () => {
        const now = children(proc.child.pid as number);
        return now.length === 2 && now.every((pid) => !before.includes(pid)) && now;
      },
      { timeoutMs: 30_000, message: "two replacement workers" },
    );
    // Started with --port 0: a replacement asking for a port of its own would serve elsewhere.
    await waitFor(
      async () => {
        const res = await request(`${url}/readyz`, { reset: true }).catch(() => undefined);
        await res?.body.text();
        return res?.statusCode === 200;
      },
      { timeoutMs: 30_000, message: `the replacements serving ${url}` },
    );
  });

  test("SIGTERM to the process group drains each worker once: /readyz fails while requests are served, then every process exits 0", async () => {
    const exited = proc.kill("SIGTERM", DRAIN_DELAY_MS);
    // A worker that took the primary's stop as a second signal would skip the delay and close.
    const draining = await waitFor(
      async () => {
        const res = await request(`${url}/readyz`, { reset: true });
        await res.body.text();
        return res.statusCode === 503 && res;
      },
      { timeoutMs: DRAIN_DELAY_MS / 2, intervalMs: 20, message: "/readyz 503 while draining" },
    );
    assert.equal(draining.statusCode, 503);
    const served = await request(`${url}/v1/buckets`, { reset: true });
    assert.equal(served.statusCode, 200, await served.body.text());
    // The drain would last its delay; a second signal hurries it, for every worker.
    void proc.kill("SIGINT");
    const status = await exited;
    assert.equal(status.code, 0);
    for (const pid of workers) assert.throws(() => process.kill(pid, 0), { code: "ESRCH" });
  });
});

test("--workers 2 on a port already taken fails the start, naming the worker", async (t) => {
  const dir = await tempDir(t);
  const taken = await embeddedGateway(dir);
  try {
    const port = new URL(taken.url).port;
    const [command, args] = nodeArgs("src/main.ts", [
      ...["--port", port, "--data-dir", `${dir}/other`, "--workers", "2"],
      ...["--log-level", "warn", "--drain-delay-ms", "0"],
    ]);
    await assert.rejects(
      startProcess({ command, args, readyLine: /listening on/ }),
      /exited \(code 1[\s\S]*before it was ready/,
    );
  } finally {
    await taken.proc.kill("SIGTERM");
  }
});

/**
 * `npm start` in `dir` with `flags`, once it logged its first line (its star, storage and any
 * workers are still starting); with `stopped`, what a stop then must leave: exit 0, no ready line.
 */
async function starting(dir: string, flags: string[]) {
  const [command, args] = nodeArgs("src/main.ts", [
    ...["--port", "0", "--data-dir", dir, "--log-level", "info"],
    ...flags,
  ]);
  const proc = await startProcess({
    command,
    args,
    readyLine: /"msg":"nova-gateway starting"/,
    readyOn: "stderr",
  });
  const stopped = async () => {
    assert.deepEqual(await proc.waitForExit(30_000), { code: 0, signal: null }, proc.stderr());
    assert.equal(proc.stdoutLines().filter((l) => l.includes("listening on")).length, 0);
  };
  return { proc, stopped };
}

test("SIGTERM while the workers start, to the primary alone or to the whole group: all exit 0", async (t) => {
  for (const to of ["the primary", "the group"] as const) {
    // The primary's first line; its workers start after its star.
    const { proc, stopped } = await starting(await tempDir(t), [
      ...["--workers", "2", "--drain-delay-ms", "0"],
    ]);
    try {
      const pid = proc.child.pid as number;
      const forked = await waitFor(() => children(pid).length === 2 && children(pid), {
        timeoutMs: 30_000,
        message: "two workers forked",
      });
      // To the primary: before its workers listen for its messages (a node:cluster worker drops
      // what comes earlier), as when it is PID 1 in a container. To the group, as systemd and
      // `docker stop` of a group do: it reaches workers still loading their code, before any
      // handler of theirs could be in place.
      process.kill(to === "the primary" ? pid : -pid, "SIGTERM");
      await stopped();
      for (const worker of forked) {
        await waitFor(() => !alive(worker), { message: `${to}: worker ${worker} exited` });
      }
    } finally {
      await proc.kill("SIGKILL");
    }
  }
});

test("SIGTERM while a single gateway starts: it stops once serving, without the drain delay, prints no ready line", async (t) => {
  // The default drain delay, which a gateway no one was told of has no reason to wait.
  const { proc, stopped } = await starting(await tempDir(t), []);
  try {
    // Its star and storage are still starting.
    process.kill(proc.child.pid as number, "SIGTERM");
    await stopped();
    assert.match(proc.stderr(), /"drainDelayMs":0,"msg":"draining"/);
  } finally {
    await proc.kill("SIGKILL");
  }
});

test("a worker whose primary is killed drains its SSE sessions, then exits", async (t) => {
  const dir = await tempDir(t);
  const { url, proc } = await embeddedGateway(dir, ["--workers", "2"]);
  try {
    const forked = children(proc.child.pid as number);
    const stream = await newStream(url);
    const sse = await openSse(`${url}${stream}/records?seq_num=0`);
    await readUntil(sse.events, (seen) => seen.some((e) => e.event === "ping"));
    process.kill(proc.child.pid as number, "SIGKILL");
    // The drain's last word, then the end; a worker that exits at once cuts the stream.
    const rest = await readUntil(sse.events);
    assert.equal(rest.at(-1)?.event, "retry", JSON.stringify(rest));
    for (const worker of forked) {
      await waitFor(() => !alive(worker), { message: `worker ${worker} exited` });
    }
  } finally {
    await proc.kill("SIGKILL");
  }
});

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
