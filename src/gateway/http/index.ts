// The HTTP layer's plugins and parts: the listener (HTTP/1.1, h2c, TLS), errors, JSON,
// compression, metrics, OpenAPI, ops, drain, admission, live sessions, response memory, request
// logs, and the route schemas.
export * from "./admission.ts";
export * from "./answer-budget.ts";
export * from "./body-guard.ts";
export * from "./chunk-writer.ts";
export * from "./client-abort.ts";
export * from "./client-error.ts";
export * from "./client-key.ts";
export * from "./client-sessions.ts";
export * from "./compression.ts";
export * from "./connection-limit.ts";
export * from "./cross-origin.ts";
export * from "./drain.ts";
export * from "./errors-plugin.ts";
export * from "./host-check.ts";
export * from "./json.ts";
export * from "./lazy-validators.ts";
export * from "./listener.ts";
export * from "./live-sessions.ts";
export * from "./metrics.ts";
export * from "./no-store-default.ts";
export * from "./openapi.ts";
export * from "./ops.ts";
export * from "./page-caching.ts";
export * from "./page-headers.ts";
export * from "./pipeline-order.ts";
export * from "./query-encoding.ts";
export * from "./raw-response.ts";
export * from "./request-log.ts";
export * from "./response-buffers.ts";
export * from "./response-check.ts";
export { routeSchemas } from "./schemas/plain.gen.ts";
export * from "./take-body.ts";
export * from "./trusted-proxies.ts";
export * from "./unsent-answers.ts";
export * from "./utf8-charset.ts";
export * from "./validation-errors.ts";
