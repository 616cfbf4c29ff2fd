// NDJSON append sessions: one request body of appends, one response of acks.
export { bodyChunks } from "./body-chunks.ts";
export * from "./ndjson-http.ts";
