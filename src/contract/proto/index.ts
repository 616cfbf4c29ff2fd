// The wire contract: the protos loaded at run time, typed status details and channel options
// (the limits both programs enforce are contract/wire-limits.ts, loaded without the protos).
export * from "./channel-options.ts";
export * from "./dataplane-methods.ts";
export type * from "./in-process.ts";
export * from "./load.ts";
export * from "./status-details.ts";
