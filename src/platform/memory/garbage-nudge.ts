// Asks V8 for a full collection once garbage has piled up. V8 collects the JS heap as it
// allocates, but the memory of dead Buffers (append bodies, decoded records, gRPC messages) is
// given back only when a full collection finds their owners dead, and V8 starts one late, or,
// once the traffic that made them has stopped, never: after an append flood a gateway held
// 812 MiB of dead buffers until a collection was forced (docs/operating.md). Every look (the
// timer's, each `intervalMs`) starts a collection
// - when buffer memory grew more than `slackBytes` past the level the last full collection left
//   (growth), the nudge's own or one V8 ran by itself: under steady heavy appends V8 collects
//   on its own, and a nudge on top of it marked the heap again about every second for nothing
//   (docs/benchmarks.md, "Warm code"), or
// - when, `quietLooks` looks after the last collection, the old generation and buffers together
//   are still more than `slackBytes` over the lowest level ever seen, and the event loop was
//   quiet since the last look (leftovers: what a burst left behind once it ended, which no
//   growth will reveal). At the level where such a collection left them before, it waits
//   twice as long as the last time (up to MAX_REPEAT_FACTOR quiet waits): that level may be
//   live (subscribers still connected), or garbage that replaced live data at the same level
//   (those subscribers gone), which only another collection tells apart.
// A forced collection marks the whole heap in one pause (300-430 ms with 10,000 subscribers):
// under load the heap is left to V8, which marks it concurrently, and only buffers are nudged.

/** The longest wait for leftovers at an unchanged level, in quiet waits (`quietLooks`). */
export const MAX_REPEAT_FACTOR = 64;

export interface GarbageNudgeOptions {
  slackBytes: number;
  intervalMs: number;
  /** Looks after a collection before leftovers are collected. */
  quietLooks: number;
  /** The event loop's busy share since the last look (0 to 1) under which leftovers go. */
  quietBusy: number;
  /** What the nudge watches now. */
  measure: () => MemoryLevel;
  /** The event loop's busy share since the last call, 0 to 1. */
  busy: () => number;
  /** Starts a full collection. */
  collect: () => void;
  /** The full collections the process has finished so far, the nudge's own included. */
  fullCollections: () => number;
}

/** The memory a nudge watches, in bytes. */
export interface MemoryLevel {
  /** Buffers: external memory, whose growth is collected at once. */
  buffers: number;
  /** The heap outside the young generation plus buffers, whose leftovers are collected. */
  settled: number;
}

export class GarbageNudge {
  readonly #opts: GarbageNudgeOptions;
  /** The lowest buffer level since the last collection (set by the first look after it). */
  #floor: number;
  /** The lowest settled level ever seen. */
  #base: number;
  /** The level at the last collection for leftovers. */
  #leftoverAt = Number.NaN;
  /** Looks a collection for leftovers at that same level waits for: doubled at each one. */
  #sameLevelLooks = 0;
  #looksSince = 1;
  #fullCollectionsSeen: number;
  #timer: NodeJS.Timeout | undefined;
  #collections = 0;

  constructor(opts: GarbageNudgeOptions) {
    this.#opts = opts;
    const { buffers, settled } = opts.measure();
    this.#floor = buffers;
    this.#base = settled;
    this.#fullCollectionsSeen = opts.fullCollections();
  }

  /** Collections started so far. */
  get collections(): number {
    return this.#collections;
  }

  start(): void {
    this.#timer ??= setInterval(() => this.look(), this.#opts.intervalMs);
    this.#timer.unref();
  }

  stop(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
  }

  /** One look: measures, and starts a collection for growth or leftovers. */
  look(): void {
    const { buffers, settled } = this.#opts.measure();
    const busy = this.#opts.busy();
    const { slackBytes, quietLooks, quietBusy } = this.#opts;
    this.#looksSince++;
    this.#base = Math.min(this.#base, settled);
    const fullCollections = this.#opts.fullCollections();
    const collectedSince = fullCollections !== this.#fullCollectionsSeen;
    this.#fullCollectionsSeen = fullCollections;
    // Growth counts from the level after the latest full collection, whoever asked for it.
    if (this.#looksSince === 1 || collectedSince) this.#floor = buffers;
    this.#floor = Math.min(this.#floor, buffers);
    if (!collectedSince && buffers - this.#floor > slackBytes) {
      this.#collect();
      return;
    }
    const sameLevel = Math.abs(settled - this.#leftoverAt) <= slackBytes / 2;
    const leftovers =
      this.#looksSince > (sameLevel ? this.#sameLevelLooks : quietLooks) &&
      busy < quietBusy &&
      settled - this.#base > slackBytes;
    if (leftovers) {
      this.#sameLevelLooks = sameLevel
        ? Math.min(this.#sameLevelLooks * 2, quietLooks * MAX_REPEAT_FACTOR)
        : quietLooks * 2;
      this.#leftoverAt = settled;
      this.#collect();
    }
  }

  #collect(): void {
    this.#looksSince = 0;
    this.#collections++;
    this.#opts.collect();
  }
}

/** What `v8.getHeapSpaceStatistics()` says of one heap space. */
export interface HeapSpace {
  space_name: string;
  space_used_size: number;
}

/**
 * The level a nudge watches: the heap's spaces outside the young generation, plus `external`
 * (Buffers). The young generation is left out: it fills with short-lived garbage by the tens of
 * MiB between scavenges under steady load, which read as growth forced a full collection of
 * every subscriber's objects every few seconds (docs/subscriptions.md).
 */
export function settledBytes(spaces: readonly HeapSpace[], external: number): number {
  let settled = external;
  for (const space of spaces) {
    if (!space.space_name.startsWith("new_")) settled += space.space_used_size;
  }
  return settled;
}
