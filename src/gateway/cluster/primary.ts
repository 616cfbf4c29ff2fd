// The primary of `--workers N`: forks N gateway processes that serve one port (node:cluster
// hands each accepted connection to a worker in turn), replaces one that dies, stops them all on
// a signal, and answers a worker's /metrics with every process's metrics summed.
import cluster from "node:cluster";
import type { Logger } from "pino";
import { AggregatorRegistry, type Registry } from "prom-client";
import {
  isToPrimary,
  type MetricsPart,
  type StopSignal,
  type ToPrimary,
  type ToWorker,
} from "./messages.ts";

/** One forked worker, as the primary uses it. */
export interface WorkerProcess {
  readonly pid: number | undefined;
  send(message: ToWorker): void;
  onMessage(fn: (message: unknown) => void): void;
  onExit(fn: (code: number | null, signal: string | null) => void): void;
}

/** node:cluster's fork: the worker runs this process's entry with its arguments. */
export function forkWorker(env: Record<string, string>): WorkerProcess {
  const worker = cluster.fork(env);
  return {
    get pid() {
      return worker.process.pid;
    },
    send(message) {
      // A worker that died a moment ago fails the write (EPIPE): its exit, which follows, is what
      // the primary acts on. Without a callback the failure is an 'error' event that kills it.
      if (worker.isConnected()) worker.send(message, () => undefined);
    },
    onMessage: (fn) => void worker.on("message", fn),
    onExit: (fn) => void worker.on("exit", fn),
  };
}

export interface ClusterPrimaryOptions {
  workers: number;
  /** Environment of every worker, on top of this process's. */
  env: Record<string, string>;
  logger: Logger;
  /** How long a worker has to send its part of a /metrics answer. */
  ipcTimeoutMs: number;
  /** This process's own metrics, summed with the workers'. */
  registry: Registry;
  fork?: (env: Record<string, string>) => WorkerProcess;
  now?: () => number;
}

/**
 * A replacement for a worker that died young (before it was ready, or within `youngMs` after)
 * waits, twice as long each time, up to the most: a worker that cannot start is retried every
 * 10 s, however long each try takes to fail.
 */
export const RESTART_DELAY_MS = { first: 250, most: 10_000, youngMs: 10_000 };

interface Live {
  process: WorkerProcess;
  /** The environment it was forked with. */
  env: Record<string, string>;
  /** When it said it was ready; undefined before. */
  readyAt: number | undefined;
  /** Its answers to /metrics gatherings still awaited, by id. */
  gathering: Set<number>;
  /** Its metrics as the last /metrics answer summed them. */
  lastPart?: MetricsPart;
}

/**
 * What of a worker's metrics outlives it in the sums: its counts, never its gauges. (prom-client
 * types a metric's type as an enum; its JSON holds the name.)
 */
const COUNTED = new Set<unknown>(["counter", "histogram"]);

export class ClusterPrimary {
  readonly #opts: ClusterPrimaryOptions;
  #env: Record<string, string>;
  readonly #fork: (env: Record<string, string>) => WorkerProcess;
  readonly #now: () => number;
  readonly #live = new Set<Live>();
  readonly #parts = new Map<number, (part: MetricsPart | undefined) => void>();
  #nextId = 0;
  #restartMs = RESTART_DELAY_MS.first;
  #restartTimer: NodeJS.Timeout | undefined;
  #started = false;
  #stopping: StopSignal | undefined;
  #stopRound = 0;
  #failed = false;
  #onStarted: { resolve: (url: string) => void; reject: (err: Error) => void } | undefined;
  #onStopped: (() => void) | undefined;
  /** The counts of the workers that exited, summed: the cluster's counters never go back. */
  #retired: Promise<MetricsPart> = Promise.resolve([]);

  constructor(opts: ClusterPrimaryOptions) {
    this.#opts = opts;
    this.#env = opts.env;
    this.#fork = opts.fork ?? forkWorker;
    this.#now = opts.now ?? Date.now;
  }

  /** Workers alive now (pids), ready or not. */
  get pids(): number[] {
    return [...this.#live].flatMap((w) => (w.process.pid === undefined ? [] : [w.process.pid]));
  }

  /**
   * Forks the workers; resolves with the URL they serve once every one is ready, rejects when
   * one exits before (the others are stopped then).
   */
  start(): Promise<string> {
    const started = new Promise<string>((resolve, reject) => {
      this.#onStarted = { resolve, reject };
    });
    for (let i = 0; i < this.#opts.workers; i++) this.#spawn();
    return started;
  }

  /**
   * Stops every worker with `signal` (each drains as a lone gateway does) and resolves once all
   * have exited: 0 when each exited 0. Called again, it passes SIGINT on: the drains hurry.
   */
  async stop(signal: StopSignal): Promise<number> {
    clearTimeout(this.#restartTimer);
    const again = this.#stopping !== undefined;
    this.#stopping = again ? "SIGINT" : signal;
    this.#stopRound++;
    for (const w of this.#live) w.process.send(this.#stopMessage(this.#stopping));
    if (this.#live.size > 0) {
      await new Promise<void>((resolve) => {
        const previous = this.#onStopped;
        this.#onStopped = () => {
          previous?.();
          resolve();
        };
      });
    }
    return this.#failed ? 1 : 0;
  }

  /**
   * More environment for a worker forked when none is alive (the port the first ones bound). One
   * forked while others live gets theirs: they share node:cluster's listening handle, which is
   * kept by the address and port they asked for, until the last of them is gone.
   */
  forkWith(env: Record<string, string>): void {
    this.#env = { ...this.#env, ...env };
  }

  #stopMessage(signal: StopSignal): ToWorker {
    return { nova: "stop", signal, round: this.#stopRound };
  }

  #spawn(): void {
    const env = this.#live.values().next().value?.env ?? this.#env;
    const process = this.#fork(env);
    const live: Live = { process, env, readyAt: undefined, gathering: new Set() };
    this.#live.add(live);
    this.#opts.logger.info({ workerPid: process.pid }, "worker starting");
    process.onMessage((message) => {
      if (isToPrimary(message)) this.#onMessage(live, message);
    });
    process.onExit((code, signal) => this.#onExit(live, code, signal));
  }

  #onMessage(live: Live, message: ToPrimary): void {
    switch (message.nova) {
      case "ready":
        // A stop sent while it started came before it listened: it hears it now.
        if (this.#stopping) {
          live.process.send(this.#stopMessage(this.#stopping));
          return;
        }
        live.readyAt = this.#now();
        this.#opts.logger.info({ workerPid: live.process.pid, url: message.url }, "worker ready");
        if (!this.#started && [...this.#live].every((w) => w.readyAt !== undefined)) {
          this.#started = this.#live.size === this.#opts.workers;
          if (this.#started) this.#onStarted?.resolve(message.url);
        }
        return;
      case "metrics":
        void this.#clusterMetrics().then(
          (text) => live.process.send({ nova: "metrics-text", id: message.id, text }),
          (err: Error) =>
            live.process.send({ nova: "metrics-failed", id: message.id, message: err.message }),
        );
        return;
      case "metrics-part":
        this.#parts.get(message.id)?.(message.part);
        return;
    }
  }

  #onExit(live: Live, code: number | null, signal: string | null): void {
    this.#live.delete(live);
    if (live.lastPart) this.#retire(live.lastPart);
    // A scrape waiting for its part fails now rather than at its timeout.
    for (const id of live.gathering) this.#parts.get(id)?.(undefined);
    const pid = live.process.pid;
    // A worker still starting when a stop signal came to the group (before Node ran any of its
    // code) ends by the signal's default action: it served nothing, which is a clean stop.
    const stoppedStarting =
      live.readyAt === undefined && (signal === "SIGTERM" || signal === "SIGINT");
    if (this.#stopping) {
      if (code !== 0 && !stoppedStarting) this.#failed = true;
      if (this.#live.size === 0) this.#onStopped?.();
      return;
    }
    // Such a worker may end before this process hears its own copy of the signal (the kernel
    // hands the two to different threads): it is replaced, which the stop then ends, rather than
    // failing the start. A worker that exits of itself before it is ready fails the start.
    if (!this.#started && !stoppedStarting) {
      this.#failed = true;
      const why = `worker ${pid} exited (code ${code}, signal ${signal}) before it was ready`;
      this.#onStarted?.reject(new Error(why));
      void this.stop("SIGINT");
      return;
    }
    const young =
      live.readyAt === undefined || this.#now() - live.readyAt < RESTART_DELAY_MS.youngMs;
    const delayMs = young ? this.#restartMs : 0;
    this.#restartMs = young
      ? Math.min(this.#restartMs * 2, RESTART_DELAY_MS.most)
      : RESTART_DELAY_MS.first;
    const served = live.readyAt !== undefined;
    this.#opts.logger[served ? "warn" : "error"](
      { workerPid: pid, code, signal, delayMs },
      served ? "worker exited; replacing it" : "worker exited before it was ready; replacing it",
    );
    this.#restartTimer = setTimeout(() => {
      this.#restartTimer = undefined;
      if (!this.#stopping) this.#spawn();
    }, delayMs);
  }

  /** Every ready worker's metrics and this process's, summed (prom-client's aggregation). */
  async #clusterMetrics(): Promise<string> {
    // The workers that exited before this scrape: one that exits during it is in its parts
    // (its last part is what it retires with), and must not be counted twice.
    const retiredBefore = this.#retired;
    const ready = [...this.#live].filter((w) => w.readyAt !== undefined);
    const parts = await Promise.all(ready.map((w) => this.#gather(w)));
    const missing = parts.filter((part) => part === undefined).length;
    if (missing > 0) {
      throw new Error(
        `${missing} of ${ready.length} workers did not send their metrics within ${this.#opts.ipcTimeoutMs} ms (or exited first); retry`,
      );
    }
    const own = await this.#opts.registry.getMetricsAsJSON();
    const retired = await retiredBefore;
    return AggregatorRegistry.aggregate([own, retired, ...(parts as MetricsPart[])]).metrics();
  }

  /** Adds an exited worker's counts, as last summed, to those of the workers before it. */
  #retire(part: MetricsPart): void {
    const counts = part.filter((metric) => COUNTED.has(metric.type));
    this.#retired = this.#retired.then((retired) =>
      AggregatorRegistry.aggregate([retired, counts]).getMetricsAsJSON(),
    );
  }

  #gather(live: Live): Promise<MetricsPart | undefined> {
    const id = ++this.#nextId;
    return new Promise<MetricsPart | undefined>((resolve) => {
      const timer = setTimeout(() => done(undefined), this.#opts.ipcTimeoutMs);
      const done = (part: MetricsPart | undefined) => {
        clearTimeout(timer);
        this.#parts.delete(id);
        live.gathering.delete(id);
        if (part) live.lastPart = part;
        resolve(part);
      };
      this.#parts.set(id, done);
      live.gathering.add(id);
      live.process.send({ nova: "gather", id });
    });
  }
}
