export * from "./messages.ts";
export * from "./primary.ts";
export * from "./worker-link.ts";
