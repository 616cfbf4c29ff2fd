// The storage formats: the stored-record codec, CRC-32C, the chunk layout and the log object
// (docs/storage-layout.md).
export * from "./chunk.ts";
export * from "./errors.ts";
export * from "./log-object.ts";
export * from "./log-void.ts";
export * from "./stored-record.ts";
export * from "./utf8.ts";
