import assert from "node:assert/strict";
import { EventEmitter } from "node:events";
import { describe, test } from "node:test";
import pino from "pino";
import { Counter, Registry } from "prom-client";
import type { ToWorker } from "./messages.ts";
import { ClusterPrimary, RESTART_DELAY_MS, type WorkerProcess } from "./primary.ts";

const logger = pino({ level: "silent" });

/** A forked worker the test drives: what it was sent, and its messages and exit on demand. */
class FakeWorker implements WorkerProcess {
  readonly sent: ToWorker[] = [];
  readonly #events = new EventEmitter();
  readonly pid: number;
  constructor(pid: number) {
    this.pid = pid;
  }
  send(message: ToWorker) {
    this.sent.push(message);
  }
  onMessage(fn: (message: unknown) => void) {
    this.#events.on("message", fn);
  }
  onExit(fn: (code: number | null, signal: string | null) => void) {
    this.#events.on("exit", fn);
  }
  say(message: unknown) {
    this.#events.emit("message", message);
  }
  exit(code: number | null, signal: string | null = null) {
    this.#events.emit("exit", code, signal);
  }
}

function cluster(workers: number, opts: { ipcTimeoutMs?: number; registry?: Registry } = {}) {
  const forked: FakeWorker[] = [];
  const envs: Record<string, string>[] = [];
  let now = 0;
  const primary = new ClusterPrimary({
    workers,
    env: { NOVA_STARS: "127.0.0.1:1" },
    logger,
    ipcTimeoutMs: opts.ipcTimeoutMs ?? 1000,
    registry: opts.registry ?? new Registry(),
    fork: (env) => {
      envs.push(env);
      const w = new FakeWorker(100 + forked.length);
      forked.push(w);
      return w;
    },
    now: () => now,
  });
  return {
    primary,
    forked,
    envs,
    advance(ms: number) {
      now += ms;
    },
  };
}

/** A cluster of `workers`, every one ready. */
async function running(workers: number) {
  const c = cluster(workers);
  const started = c.primary.start();
  for (const w of c.forked) w.say({ nova: "ready", url: "u" });
  await started;
  return c;
}

/** A worker's part of a /metrics answer: the counter c_total, and with `gauge` the gauge g. */
const metricsPart = (value: number, gauge = false) => [
  {
    name: "c_total",
    help: "c",
    type: "counter",
    aggregator: "sum",
    values: [{ value, labels: {} }],
  },
  ...(gauge
    ? [{ name: "g", help: "g", type: "gauge", aggregator: "sum", values: [{ value, labels: {} }] }]
    : []),
];

const until = async (what: () => boolean) => {
  for (let i = 0; i < 1000 && !what(); i++) await new Promise((r) => setTimeout(r, 2));
  assert.ok(what(), "condition not met");
};

describe("ClusterPrimary", () => {
  test("start forks the workers with the env, and resolves once every one is ready", async () => {
    const { primary, forked, envs } = cluster(3);
    let url: string | undefined;
    const started = primary.start().then((u) => {
      url = u;
    });
    assert.equal(forked.length, 3);
    assert.deepEqual(envs, Array(3).fill({ NOVA_STARS: "127.0.0.1:1" }));
    forked[0]?.say({ nova: "ready", url: "http://127.0.0.1:9" });
    forked[1]?.say({ nova: "ready", url: "http://127.0.0.1:9" });
    forked[1]?.say({ something: "else" });
    await new Promise((r) => setImmediate(r));
    assert.equal(url, undefined);
    forked[2]?.say({ nova: "ready", url: "http://127.0.0.1:9" });
    await started;
    assert.equal(url, "http://127.0.0.1:9");
    assert.deepEqual(primary.pids, [100, 101, 102]);
  });

  test("a worker that exits before it is ready fails the start and stops the others", async () => {
    const { primary, forked } = cluster(2);
    const started = primary.start();
    forked[0]?.say({ nova: "ready", url: "u" });
    forked[1]?.exit(1);
    await assert.rejects(started, /worker 101 exited \(code 1, signal null\) before it was ready/);
    assert.deepEqual(forked[0]?.sent, [{ nova: "stop", signal: "SIGINT", round: 1 }]);
    const stopped = primary.stop("SIGINT");
    forked[0]?.exit(0);
    assert.equal(await stopped, 1);
  });

  test("a starting worker ended by a stop signal is replaced; the stop that follows ends the start, clean", async () => {
    const { primary, forked } = cluster(2);
    const started = primary.start();
    // A group's SIGTERM: the worker still loading ends before this process hears its own copy.
    forked[1]?.exit(null, "SIGTERM");
    await until(() => forked.length === 3);
    const stopped = primary.stop("SIGTERM");
    for (const w of [forked[0], forked[2]]) w?.exit(null, "SIGTERM");
    assert.equal(await stopped, 0);
    let settled = false;
    void started.finally(() => {
      settled = true;
    });
    await new Promise((r) => setImmediate(r));
    assert.equal(settled, false, "no failed start, no ready line");
  });

  test("a worker that dies is replaced: at once after a long life, with a doubling wait when young", async () => {
    const { primary, forked, advance } = cluster(1);
    const started = primary.start();
    forked[0]?.say({ nova: "ready", url: "u" });
    await started;
    advance(RESTART_DELAY_MS.youngMs);
    forked[0]?.exit(null, "SIGKILL");
    await until(() => forked.length === 2);
    assert.deepEqual(primary.pids, [101]);
    // Dies young: waits the first delay, then twice that.
    const t0 = performance.now();
    forked[1]?.exit(1);
    await until(() => forked.length === 3);
    assert.ok(performance.now() - t0 >= RESTART_DELAY_MS.first - 5);
    const t1 = performance.now();
    forked[2]?.exit(1);
    await until(() => forked.length === 4);
    assert.ok(performance.now() - t1 >= 2 * RESTART_DELAY_MS.first - 5);
    const stopped = primary.stop("SIGTERM");
    forked[3]?.exit(0);
    assert.equal(await stopped, 0);
  });

  test("stop passes the signal to every worker, a second stop hurries them, and the code says how they ended", async () => {
    const { primary, forked } = cluster(2);
    const started = primary.start();
    for (const w of forked) w.say({ nova: "ready", url: "u" });
    await started;
    let done: number | undefined;
    const stopped = primary.stop("SIGTERM").then((code) => {
      done = code;
    });
    for (const w of forked)
      assert.deepEqual(w.sent, [{ nova: "stop", signal: "SIGTERM", round: 1 }]);
    const again = primary.stop("SIGTERM");
    for (const w of forked) {
      assert.deepEqual(w.sent.at(-1), { nova: "stop", signal: "SIGINT", round: 2 });
    }
    forked[0]?.exit(0);
    await new Promise((r) => setImmediate(r));
    assert.equal(done, undefined);
    forked[1]?.exit(3);
    await stopped;
    assert.equal(done, 1);
    assert.equal(await again, 1);
    // Nothing is replaced while stopping.
    assert.equal(forked.length, 2);
  });

  test("a worker's /metrics gets every process's metrics summed", async () => {
    const own = new Registry();
    new Counter({ name: "c_total", help: "c", registers: [own] }).inc(1);
    const { primary, forked } = cluster(2, { registry: own });
    const started = primary.start();
    for (const w of forked) w.say({ nova: "ready", url: "u" });
    await started;
    const part = (value: number) => [
      {
        name: "c_total",
        help: "c",
        type: "counter",
        aggregator: "sum",
        values: [{ value, labels: {} }],
      },
    ];
    forked[0]?.say({ nova: "metrics", id: 7 });
    await until(() => forked.every((w) => w.sent.some((m) => m.nova === "gather")));
    for (const [i, w] of forked.entries()) {
      const gather = w.sent.find((m) => m.nova === "gather") as { id: number };
      w.say({ nova: "metrics-part", id: gather.id, part: part(10 * (i + 1)) });
    }
    await until(() => forked[0]?.sent.some((m) => m.nova === "metrics-text") === true);
    const answer = forked[0]?.sent.find((m) => m.nova === "metrics-text") as {
      id: number;
      text: string;
    };
    assert.equal(answer.id, 7);
    assert.match(answer.text, /^c_total 31$/m);
  });

  test("a worker that exits leaves its counts in the sums, not its gauges", async () => {
    const { primary, forked } = await running(2);
    const part = (value: number) => metricsPart(value, true);
    /** A /metrics answer through the first worker alive, each worker sending `value(i)`. */
    const scrape = async (
      asker: FakeWorker,
      workers: FakeWorker[],
      value: (i: number) => number,
    ) => {
      const id = Math.floor(Math.random() * 1e9);
      const gathered = workers.map((w) => w.sent.filter((m) => m.nova === "gather").length);
      asker.say({ nova: "metrics", id });
      await until(() =>
        workers.every(
          (w, i) => w.sent.filter((m) => m.nova === "gather").length > (gathered[i] ?? 0),
        ),
      );
      for (const [i, w] of workers.entries()) {
        const gather = w.sent.filter((m) => m.nova === "gather").at(-1) as { id: number };
        w.say({ nova: "metrics-part", id: gather.id, part: part(value(i)) });
      }
      await until(() => asker.sent.some((m) => m.nova === "metrics-text" && m.id === id));
      return (asker.sent.find((m) => m.nova === "metrics-text" && m.id === id) as { text: string })
        .text;
    };
    const [first, second] = forked as [FakeWorker, FakeWorker];
    const before = await scrape(first, [first, second], (i) => 10 * (i + 1));
    assert.match(before, /^c_total 30$/m);
    second.exit(null, "SIGKILL");
    await until(() => forked.length === 3);
    const replacement = forked[2] as FakeWorker;
    replacement.say({ nova: "ready", url: "u" });
    // The replacement counts from 0: the sum stays at least what it was.
    const after = await scrape(first, [first, replacement], (i) => (i === 0 ? 11 : 1));
    assert.match(after, /^c_total 32$/m);
    assert.match(after, /^g 12$/m);
    const stopped = primary.stop("SIGTERM");
    first.exit(0);
    replacement.exit(0);
    await stopped;
  });

  test("a worker that exits while a scrape sums its part is counted once", async () => {
    const { primary, forked } = await running(2);
    const part = (value: number) => metricsPart(value);
    const [first, second] = forked as [FakeWorker, FakeWorker];
    first.say({ nova: "metrics", id: 1 });
    await until(() => forked.every((w) => w.sent.some((m) => m.nova === "gather")));
    for (const [i, w] of forked.entries()) {
      const gather = w.sent.find((m) => m.nova === "gather") as { id: number };
      w.say({ nova: "metrics-part", id: gather.id, part: part(10 * (i + 1)) });
    }
    // Its part is in; it dies before the sum is made.
    second.exit(null, "SIGKILL");
    await until(() => first.sent.some((m) => m.nova === "metrics-text"));
    const text = (first.sent.find((m) => m.nova === "metrics-text") as { text: string }).text;
    assert.match(text, /^c_total 30$/m);
    const stopped = primary.stop("SIGTERM");
    for (const w of forked.slice(2)) w.exit(0);
    first.exit(0);
    await stopped;
  });

  test("a worker that becomes ready after the stop is told to stop then", async () => {
    const { primary, forked } = cluster(2);
    let started = false;
    void primary.start().then(() => {
      started = true;
    });
    forked[0]?.say({ nova: "ready", url: "u" });
    const stopped = primary.stop("SIGTERM");
    // The second one may not have been listening yet when the stop went out: it hears it again,
    // as the same round, which a worker that did hear it passes over.
    forked[1]?.say({ nova: "ready", url: "u" });
    assert.deepEqual(forked[1]?.sent, [
      { nova: "stop", signal: "SIGTERM", round: 1 },
      { nova: "stop", signal: "SIGTERM", round: 1 },
    ]);
    for (const w of forked) w.exit(0);
    assert.equal(await stopped, 0);
    assert.equal(started, false, "no ready line after the stop");
  });

  test("a worker that does not send its part in time fails the answer, saying so", async () => {
    const { primary, forked } = cluster(2, { ipcTimeoutMs: 20 });
    const started = primary.start();
    for (const w of forked) w.say({ nova: "ready", url: "u" });
    await started;
    forked[1]?.say({ nova: "metrics", id: 1 });
    await until(() => forked[1]?.sent.some((m) => m.nova === "metrics-failed") === true);
    const answer = forked[1]?.sent.find((m) => m.nova === "metrics-failed") as { message: string };
    assert.match(
      answer.message,
      /2 of 2 workers did not send their metrics within 20 ms \(or exited first\); retry/,
    );
  });

  test("a worker that exits before it is ready waits as a young one, however long it took to fail", async () => {
    const { primary, forked, advance } = await running(1);
    advance(RESTART_DELAY_MS.youngMs);
    forked[0]?.exit(null, "SIGKILL");
    await until(() => forked.length === 2);
    // The replacement fails to start, long after it was forked.
    advance(3 * RESTART_DELAY_MS.youngMs);
    const t0 = performance.now();
    forked[1]?.exit(2);
    await until(() => forked.length === 3);
    assert.ok(performance.now() - t0 >= RESTART_DELAY_MS.first - 5);
    const stopped = primary.stop("SIGTERM");
    forked[2]?.exit(0);
    assert.equal(await stopped, 0);
  });

  test("forkWith's environment goes to a worker forked when none is alive; one forked beside others gets theirs", async () => {
    const { primary, forked, envs, advance } = await running(2);
    primary.forkWith({ NOVA_PORT: "8123" });
    advance(RESTART_DELAY_MS.youngMs);
    forked[0]?.exit(null, "SIGKILL");
    await until(() => forked.length === 3);
    assert.deepEqual(envs[2], { NOVA_STARS: "127.0.0.1:1" });
    forked[2]?.say({ nova: "ready", url: "u" });
    advance(RESTART_DELAY_MS.youngMs);
    forked[1]?.exit(null, "SIGKILL");
    forked[2]?.exit(null, "SIGKILL");
    await until(() => forked.length === 5);
    assert.deepEqual(envs[3], { NOVA_STARS: "127.0.0.1:1", NOVA_PORT: "8123" });
    assert.deepEqual(envs[4], envs[3]);
    const stopped = primary.stop("SIGTERM");
    for (const w of forked.slice(3)) w.exit(0);
    await stopped;
  });

  test("a worker that exits before it sends its part fails the answer at once, not at the timeout", async () => {
    const { primary, forked } = cluster(2, { ipcTimeoutMs: 60_000 });
    const started = primary.start();
    for (const w of forked) w.say({ nova: "ready", url: "u" });
    await started;
    forked[0]?.say({ nova: "metrics", id: 1 });
    await until(() => forked.every((w) => w.sent.some((m) => m.nova === "gather")));
    const gather = forked[0]?.sent.find((m) => m.nova === "gather") as { id: number };
    forked[0]?.say({ nova: "metrics-part", id: gather.id, part: metricsPart(1) });
    forked[1]?.exit(null, "SIGKILL");
    await until(() => forked[0]?.sent.some((m) => m.nova === "metrics-failed") === true);
    const answer = forked[0]?.sent.find((m) => m.nova === "metrics-failed") as { message: string };
    assert.match(answer.message, /1 of 2 workers did not send their metrics/);
    const stopped = primary.stop("SIGTERM");
    for (const w of [forked[0], ...forked.slice(2)]) w?.exit(0);
    await stopped;
  });
});
