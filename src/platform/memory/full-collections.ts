// The full (mark-compact) collections this process has finished, V8's own and forced ones alike,
// counted from Node's `gc` performance entries: what tells the garbage nudge that V8 collected
// on its own since its last look (garbage-nudge.ts). The observer holds no handle open.
import { constants, PerformanceObserver } from "node:perf_hooks";

/** Starts counting; the function returned reads the count so far. */
export function countFullCollections(): () => number {
  let count = 0;
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      const { detail } = entry as { detail?: { kind?: number } };
      if (detail?.kind === constants.NODE_PERFORMANCE_GC_MAJOR) count++;
    }
  }).observe({ entryTypes: ["gc"] });
  return () => count;
}
