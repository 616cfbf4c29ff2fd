// The routes, one plugin per resource: parse, call one service, translate.
export * from "./buckets.ts";
export * from "./context.ts";
export * from "./records.ts";
export * from "./streams.ts";
export * from "./tokens.ts";
