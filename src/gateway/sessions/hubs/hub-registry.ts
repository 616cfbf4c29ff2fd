// The gateway's live hubs, one per stream followed: made with the first subscriber, closed
// `lingerMs` after the last one leaves (a client reconnecting at once finds it still there),
// and dropped at once when its feed fails, so the next subscriber starts a fresh one.
import { DEFAULT_FANOUT_SLICE } from "../../settings.ts";
import { FanoutTurns } from "./fanout-turns.ts";
import type { RingLimits } from "./hub-ring.ts";
import { RingBudget } from "./ring-budget.ts";
import { type HubFeed, type HubSubscriber, StreamHub } from "./stream-hub.ts";

export interface HubRegistryOptions {
  feed: (bucket: string, key: string) => HubFeed;
  ring: RingLimits;
  /** The most every hub's window may hold together (ring-budget.ts); absent: no such bound. */
  totalBytes?: number;
  lingerMs: number;
  /** Readers the hubs' fan-outs serve, all together, before they yield to the event loop. */
  fanoutSlice?: number;
  /** Told when the number of hubs changes (a gauge in /metrics). */
  onCount?: (hubs: number) => void;
}

export interface HubLease {
  readonly hub: StreamHub;
  release(): void;
}

/** A hub in the registry, with its leases. */
class Held {
  readonly hub: StreamHub;
  readonly #id: string;
  /** The registry's hubs, which this one may have left (dropped) before its leases end. */
  readonly #hubs: Map<string, Held>;
  readonly #lingerMs: number;
  leases = 0;
  linger: NodeJS.Timeout | undefined;

  constructor(hub: StreamHub, id: string, hubs: Map<string, Held>, lingerMs: number) {
    this.hub = hub;
    this.#id = id;
    this.#hubs = hubs;
    this.#lingerMs = lingerMs;
  }

  /**
   * One lease fewer: the hub lingers once it has none left; one dropped already (its stream
   * closed: no linger) closes, and its window leaves the budget.
   */
  release(): void {
    if (--this.leases > 0) return;
    if (this.#hubs.get(this.#id) !== this) {
      this.hub.close();
      return;
    }
    const hub = this.hub;
    this.linger = setTimeout(() => hub.close(), this.#lingerMs);
    this.linger.unref();
  }
}

/** One subscriber's hold on a hub: an object, not a closure, as every subscriber holds one. */
class Lease implements HubLease {
  readonly hub: StreamHub;
  #held: Held | undefined;

  constructor(held: Held) {
    this.hub = held.hub;
    this.#held = held;
  }

  release(): void {
    const held = this.#held;
    this.#held = undefined;
    held?.release();
  }
}

export class HubRegistry {
  readonly #opts: HubRegistryOptions;
  readonly #hubs = new Map<string, Held>();
  readonly #turns: FanoutTurns;
  readonly #budget: RingBudget | undefined;

  constructor(opts: HubRegistryOptions) {
    this.#opts = opts;
    this.#turns = new FanoutTurns(opts.fanoutSlice ?? DEFAULT_FANOUT_SLICE);
    this.#budget = opts.totalBytes === undefined ? undefined : new RingBudget(opts.totalBytes);
  }

  get size(): number {
    return this.#hubs.size;
  }

  /** The memory every hub's window holds (records and their encodings). */
  get heldBytes(): number {
    if (this.#budget) return this.#budget.held;
    let bytes = 0;
    for (const { hub } of this.#hubs.values()) bytes += hub.ringBytes;
    return bytes;
  }

  /** The most the windows may hold: one ring's bound per hub, and their total's. */
  get boundBytes(): number {
    const rings = this.#hubs.size * this.#opts.ring.maxBytes;
    return Math.min(rings, this.#budget?.maxBytes ?? rings);
  }

  /** The stream's hub, made with `opener`'s credentials when there is none. */
  acquire(bucket: string, key: string, opener: HubSubscriber): HubLease {
    const id = JSON.stringify([bucket, key]);
    let held = this.#hubs.get(id);
    if (!held || held.hub.ended) {
      const limits = { ...this.#opts.ring, turns: this.#turns, budget: this.#budget };
      const hub = new StreamHub(this.#opts.feed(bucket, key), limits, opener, (h) =>
        this.#drop(id, h),
      );
      held = new Held(hub, id, this.#hubs, this.#opts.lingerMs);
      this.#hubs.set(id, held);
      this.#opts.onCount?.(this.#hubs.size);
    }
    clearTimeout(held.linger);
    held.linger = undefined;
    held.leases++;
    return new Lease(held);
  }

  /** Closes every hub (the gateway is shutting down). */
  closeAll(): void {
    for (const held of [...this.#hubs.values()]) {
      clearTimeout(held.linger);
      held.hub.close();
    }
  }

  #drop(id: string, hub: StreamHub): void {
    const held = this.#hubs.get(id);
    if (held?.hub !== hub) return;
    clearTimeout(held.linger);
    this.#hubs.delete(id);
    this.#opts.onCount?.(this.#hubs.size);
    // Ended with no reader left (they left while it lingered): nothing reads its window now.
    if (held.leases === 0) hub.close();
  }
}
