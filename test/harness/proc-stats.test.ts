import assert from "node:assert/strict";
import { test } from "node:test";
import { cpuSeconds, rssBytes } from "./proc-stats.ts";

test("RSS is what the process itself reports, within the pages that moved between the reads", () => {
  const rss = rssBytes(process.pid);
  assert.ok(Math.abs(rss - process.memoryUsage().rss) < 16 * 1024 * 1024, String(rss));
});

test("CPU time grows with work, by about the time the process itself counted", () => {
  const before = cpuSeconds(process.pid);
  const own = process.cpuUsage();
  const until = performance.now() + 200;
  while (performance.now() < until);
  const { user, system } = process.cpuUsage(own);
  const grew = cpuSeconds(process.pid) - before;
  // /proc counts whole clock ticks (10 ms).
  assert.ok(Math.abs(grew - (user + system) / 1e6) <= 0.05, `${grew} s`);
});
