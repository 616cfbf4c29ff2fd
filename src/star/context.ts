// Everything a star's verbs share.
import type { Logger } from "pino";
import type { KeyedLock } from "./keyed-lock.ts";
import type { StarLimits } from "./limits.ts";
import type { Catalog } from "./storage/catalog.ts";
import type { ChunkStore } from "./storage/chunk-store.ts";
import type { StreamRegistry } from "./stream/registry.ts";

export interface StarContext {
  readonly id: string;
  readonly catalog: Catalog;
  readonly chunks: ChunkStore;
  readonly registry: StreamRegistry;
  readonly locks: KeyedLock;
  readonly limits: StarLimits;
  readonly log: Logger;
  readonly now: () => number;
  /** Runs work in the background (reclaiming storage); failures are logged, never thrown. */
  background(what: string, work: () => Promise<void>): void;
}
