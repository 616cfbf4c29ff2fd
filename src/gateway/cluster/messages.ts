// What a gateway cluster's primary and its workers say to each other over node:cluster's IPC
// channel: readiness, stopping, and the parts of one /metrics answer.
import type { MetricObjectWithValues, MetricValue } from "prom-client";

export type MetricsPart = MetricObjectWithValues<MetricValue<string>>[];
export type StopSignal = "SIGTERM" | "SIGINT";

export type ToPrimary =
  | { nova: "ready"; url: string }
  /** A worker's /metrics asks for the whole cluster's. */
  | { nova: "metrics"; id: number }
  /** A worker's answer to `gather`. */
  | { nova: "metrics-part"; id: number; part: MetricsPart };

export type ToWorker =
  /** `round`: the primary's nth stop; one sent again (a worker may not have heard it) has its round. */
  | { nova: "stop"; signal: StopSignal; round: number }
  /** The primary asks for this worker's metrics. */
  | { nova: "gather"; id: number }
  | { nova: "metrics-text"; id: number; text: string }
  | { nova: "metrics-failed"; id: number; message: string };

const KINDS_TO_PRIMARY = new Set(["ready", "metrics", "metrics-part"]);
const KINDS_TO_WORKER = new Set(["stop", "gather", "metrics-text", "metrics-failed"]);

/** Whether `m` is one of ours: node:cluster's channel also carries Node's and libraries' own. */
export function isToPrimary(m: unknown): m is ToPrimary {
  return typeof m === "object" && m !== null && KINDS_TO_PRIMARY.has((m as ToPrimary).nova);
}

export function isToWorker(m: unknown): m is ToWorker {
  return typeof m === "object" && m !== null && KINDS_TO_WORKER.has((m as ToWorker).nova);
}
