// Object storage: the interface both programs use, its S3 and in-memory stores, and the embedded
// s3rver for development and tests.
export * from "./errors.ts";
export * from "./memory-store.ts";
export * from "./object-store.ts";
export * from "./s3-store.ts";
export * from "./s3rver-server.ts";
