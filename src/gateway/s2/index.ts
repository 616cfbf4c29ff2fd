// The S2-compatible face: S2's REST API (basins, streams, records, SSE read sessions) over the
// same upstream, hubs and object-storage reads as nova's own routes, and the pieces the s2s
// transport shares: S2's protobuf messages, the translation to and from nova, and S2's errors.
export * from "./commands.ts";
export * from "./errors.ts";
export * from "./json.ts";
export * from "./metering.ts";
export * from "./plugin.ts";
export * from "./records.ts";
export * from "./wire.ts";
