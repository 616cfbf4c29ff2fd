// The wire contract: the protos loaded at run time, typed status details, channel options and
// the limits both programs enforce.

export * from "../wire-limits.ts";
export * from "./channel-options.ts";
export * from "./dataplane-methods.ts";
export type * from "./in-process.ts";
export * from "./load.ts";
export * from "./status-details.ts";
