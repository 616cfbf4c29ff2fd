// A worker's side of `--workers N`: it tells the primary when it is ready, takes the primary's
// stop, sends its metrics when asked, and gets the whole cluster's /metrics from the primary.
import type { Registry } from "prom-client";
import { isToWorker, type StopSignal, type ToPrimary, type ToWorker } from "./messages.ts";

/** The IPC channel to the primary: `process` in a worker. */
export interface PrimaryChannel {
  send?: ((message: ToPrimary) => unknown) | undefined;
  connected?: boolean;
  on(event: "message", fn: (message: unknown) => void): unknown;
  prependListener(event: "disconnect", fn: () => void): unknown;
}

export interface WorkerLinkOptions {
  registry: Registry;
  /** How long /metrics waits for the primary's answer. */
  timeoutMs: number;
  /** The primary said stop. */
  onStop: (signal: StopSignal) => void;
  /** The primary is gone (killed): nothing will replace or stop this worker. */
  onOrphaned: () => void;
  channel?: PrimaryChannel;
}

export class WorkerLink {
  readonly #opts: WorkerLinkOptions;
  readonly #channel: PrimaryChannel;
  readonly #waiting = new Map<number, (answer: ToWorker) => void>();
  #nextId = 0;
  /** The last stop round heard: a stop sent again is heard once. */
  #stopRound = 0;

  constructor(opts: WorkerLinkOptions) {
    this.#opts = opts;
    this.#channel = opts.channel ?? (process as PrimaryChannel);
    this.#channel.on("message", (message) => {
      if (isToWorker(message)) this.#onMessage(message);
    });
    // Before node:cluster's own listener, which exits the worker unless told it exits by choice.
    this.#channel.prependListener("disconnect", () => opts.onOrphaned());
  }

  ready(url: string): void {
    this.#send({ nova: "ready", url });
  }

  /** The cluster's metrics in Prometheus' text format, summed over every process. */
  metricsText(): Promise<string> {
    const id = ++this.#nextId;
    return new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#waiting.delete(id);
        reject(new Error(`the primary did not answer within ${this.#opts.timeoutMs} ms; retry`));
      }, this.#opts.timeoutMs);
      this.#waiting.set(id, (answer) => {
        clearTimeout(timer);
        this.#waiting.delete(id);
        if (answer.nova === "metrics-text") resolve(answer.text);
        else if (answer.nova === "metrics-failed") reject(new Error(answer.message));
      });
      if (!this.#send({ nova: "metrics", id })) {
        clearTimeout(timer);
        this.#waiting.delete(id);
        reject(new Error("the primary is gone"));
      }
    });
  }

  #onMessage(message: ToWorker): void {
    switch (message.nova) {
      case "stop":
        if (message.round <= this.#stopRound) return;
        this.#stopRound = message.round;
        this.#opts.onStop(message.signal);
        return;
      case "gather":
        // A part that cannot be gathered is not sent: the primary's /metrics answers 503.
        this.#opts.registry.getMetricsAsJSON().then(
          (part) => this.#send({ nova: "metrics-part", id: message.id, part }),
          () => undefined,
        );
        return;
      case "metrics-text":
      case "metrics-failed":
        this.#waiting.get(message.id)?.(message);
        return;
    }
  }

  #send(message: ToPrimary): boolean {
    if (!this.#channel.send || this.#channel.connected === false) return false;
    this.#channel.send(message);
    return true;
  }
}
