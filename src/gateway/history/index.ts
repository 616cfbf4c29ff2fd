// Settled history straight from object storage: the read service (pages and SSE catch-up),
// its ReadPlan source and reader, metrics and Server-Timing.
export * from "./history-reader.ts";
export * from "./metrics.ts";
export * from "./plan-source.ts";
export * from "./read-service.ts";
export * from "./timings.ts";
