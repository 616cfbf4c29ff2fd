// The gateway's error model: HttpError and its builders, the contract's error body, the table
// from a star's gRPC status, and toHttpError for any failure.
export * from "./errors.ts";
export { toHttpError } from "./from-upstream.ts";
