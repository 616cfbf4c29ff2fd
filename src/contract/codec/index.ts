// The storage formats: the stored-record codec, CRC-32C and the chunk layout (docs/storage-layout.md).
export * from "./chunk.ts";
export * from "./errors.ts";
export * from "./stored-record.ts";
