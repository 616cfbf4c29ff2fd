// Pure HTTP-JSON <-> proto translation: records, configs, positions, exact integers, query
// strings, NDJSON and SSE framing. No I/O.
export { encodeBase64 } from "./base64.ts";
export * from "./config-json.ts";
export * from "./creation-token.ts";
export * from "./fence.ts";
export * from "./fields.ts";
export * from "./format.ts";
export { singleHeader } from "./header-text.ts";
export * from "./integers.ts";
export * from "./json-body.ts";
export * from "./json-exact.ts";
export * from "./json-scratch.ts";
export * from "./list-query.ts";
export * from "./multiplex-event-id.ts";
export * from "./multiplex-query.ts";
export * from "./names.ts";
export * from "./ndjson-append.ts";
export * from "./ndjson-split.ts";
export * from "./position-json.ts";
export * from "./producer-headers.ts";
export * from "./query-params.ts";
export * from "./read-query.ts";
export * from "./record-json.ts";
export * from "./sse-event-id.ts";
export * from "./sse-events.ts";
export * from "./token-json.ts";
export * from "./trim.ts";
