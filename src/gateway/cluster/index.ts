export * from "./messages.ts";
export * from "./primary.ts";
export * from "./stop-requests.ts";
export * from "./worker-link.ts";
