// What readers read: the source contract, the fleet's Subscribe with failover, and object
// storage catch-up in front of it.
export * from "./backoff.ts";
export { withCatchUp } from "./catch-up-source.ts";
export * from "./fleet-source.ts";
export type {
  BatchSource,
  BatchTap,
  Cursor,
  ReadSink,
  SharedEvent,
  SinkIterator,
  SourceBatch,
} from "./source.ts";
export { isSinkIterator } from "./source.ts";
