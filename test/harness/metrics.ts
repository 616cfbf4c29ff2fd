// Reading a gateway's metrics in tests: scraped from /metrics, or from its prom-client registry.
import type { Counter } from "prom-client";
import { http } from "./http.ts";

/** A sample's value from a Prometheus text page: the sum over series matching `labels`. */
export function scraped(page: string, name: string, labels: Record<string, string> = {}): number {
  let sum = 0;
  for (const line of page.split("\n")) {
    const m = /^([a-z_]+)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const have = Object.fromEntries(
      [...(m[2] ?? "").matchAll(/([a-z_]+)="([^"]*)"/g)].map((l) => [l[1], l[2]]),
    );
    if (Object.entries(labels).every(([k, v]) => have[k] === v)) sum += Number(m[3]);
  }
  return sum;
}

/** One sample of a metric from the gateway's /metrics (summed over label sets containing `labels`). */
export async function metric(base: string, name: string, labels = ""): Promise<number> {
  const res = await http(base, "GET", "/metrics");
  let sum = 0;
  for (const line of res.text.split("\n")) {
    if (!line.startsWith(name)) continue;
    const rest = line.slice(name.length);
    if (!(rest.startsWith(" ") || rest.startsWith("{"))) continue;
    if (labels && !rest.includes(labels)) continue;
    sum += Number(line.split(" ").at(-1));
  }
  return sum;
}

/** A counter's value for labels (0 when never counted). */
export async function count<L extends string>(
  counter: Counter<L>,
  labels: Partial<Record<L, string>>,
): Promise<number> {
  const { values } = await counter.get();
  return values
    .filter((v) =>
      Object.entries(labels).every(
        ([k, want]) => (v.labels as Record<string, unknown>)[k] === want,
      ),
    )
    .reduce((sum, v) => sum + v.value, 0);
}
