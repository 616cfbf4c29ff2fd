// A member's lease and its view of the fleet (docs/fleet.md, "Leases"). It joins with a new
// epoch (recovering its own last epoch's log first), renews its lease object every quarter
// lease, reads every other member's, takes over the log of a member whose lease lapsed (voids
// it, replays it, marks it fenced), hands streams back to a member that (re)joins, and says when
// this member may lead its streams. Every write of a lease object is conditional, so two members
// never both win one step; the rules are in lease-rules.ts.
import type { Logger } from "pino";
import type { ObjectStore } from "../../platform/objstore/index.ts";
import { StarError, unavailable } from "../errors.ts";
import { type Held, HeldRecord } from "./held-record.ts";
import { decodeLease, encodeLease, type LeaseRecord, leaseKey } from "./lease-record.ts";
import {
  handBacksOwed,
  LeaseWatch,
  neverJoined,
  owingHandBack,
  shouldTakeOver,
  viewOf,
} from "./lease-rules.ts";
import { fenceLog } from "./log-fence.ts";

export interface LeaseKeeperOptions {
  store: ObjectStore;
  self: string;
  /** Every member's name, this one's too. */
  members: readonly string[];
  leaseMs: number;
  /** --log-puts-in-flight, alike on every member: how far a lost member's log is voided. */
  logPutsInFlight: number;
  log: Logger;
  /** A monotonic clock in ms. */
  now?: () => number;
  /** Waits `ms` (a join's pauses); setTimeout by default. */
  sleep?: (ms: number) => Promise<void>;
  /** Settles a member's log of one epoch (voided first) into chunks and state objects. */
  replay(member: string, epoch: number): Promise<void>;
  /** This member joined with `epoch`: its log writes that epoch's numbers. */
  begin(epoch: number): void;
  /** Who leads streams, in this member's view, changed. */
  onView(view: readonly string[]): void;
  /** Stop leading the streams that are `member`'s in the view now, with all they hold settled. */
  handBack(member: string): Promise<void>;
  /** This member lost its lease: it leads nothing until it has joined again. */
  onLost(reason: string): void;
}

export interface LeaseStats {
  held: boolean;
  epoch: number;
  renewals: number;
  takeovers: number;
  /** Times this member lost its lease (fenced, or unable to renew in time). */
  lost: number;
}

export class LeaseKeeper {
  readonly #o: LeaseKeeperOptions;
  readonly #now: () => number;
  readonly #sleep: (ms: number) => Promise<void>;
  readonly #watch: LeaseWatch;
  readonly #records = new Map<string, LeaseRecord>();
  #mine: Held | undefined;
  /** A write of this member's own record whose answer was lost (it may have landed). */
  #unanswered: LeaseRecord | undefined;
  #holding = false;
  #heldUntil = 0;
  #view: string[] = [];
  #joining: Promise<void> | undefined;
  /** Why the last join failed, until one succeeds: a damaged log is the caller's answer too. */
  #joinError: unknown;
  /** Own-record writes, one at a time, within one holding of the lease. */
  #writes: Promise<unknown> = Promise.resolve();
  /** Counts the holdings lost: a write that answers after its holding was lost is dropped. */
  #holdings = 0;
  /** The renewal in flight, which no round waits for, and when it was sent. */
  #renewing: { sentAt: number; done: Promise<void> } | undefined;
  readonly #busy = new Map<string, Promise<void>>();
  #timer: NodeJS.Timeout | undefined;
  #ticking = false;
  #waiters = new Set<() => void>();
  #closed = false;
  readonly stats: LeaseStats = { held: false, epoch: 0, renewals: 0, takeovers: 0, lost: 0 };

  constructor(options: LeaseKeeperOptions) {
    this.#o = options;
    this.#now = options.now ?? (() => performance.now());
    // Unref'd: a join's pause must not keep a closed keeper's process alive.
    this.#sleep = options.sleep ?? ((ms) => new Promise((r) => setTimeout(r, ms).unref()));
    this.#watch = new LeaseWatch(options.leaseMs);
  }

  /** Joins now (resolves once joined, or once the attempt failed), without the rounds. */
  join(): Promise<void> {
    this.#rejoin();
    return this.settled();
  }

  /** Joins, then renews and watches every quarter lease until closed. */
  start(): void {
    this.#rejoin();
    this.#timer = setInterval(() => void this.tick(), Math.max(1, this.#o.leaseMs / 4));
    this.#timer.unref();
  }

  close(): void {
    this.#closed = true;
    clearInterval(this.#timer);
    for (const wake of this.#waiters) wake();
  }

  /** Holding its lease by its own clock: what background writes check before they start. */
  get holds(): boolean {
    return this.#holding && this.#now() < this.#heldUntil;
  }

  /**
   * Holding its lease by its last renewal, but past it by its own clock: a member that was paused
   * (or starved) longer than a lease and may have been taken over meanwhile, before its next
   * renewal tells it. It answers nothing from what it holds in memory then.
   */
  get lapsed(): boolean {
    return this.#holding && this.#now() >= this.#heldUntil;
  }

  get view(): readonly string[] {
    return this.#view;
  }

  /** Holding its lease, with every member in its view having handed its streams back. */
  get ready(): boolean {
    const mine = this.#mine?.record;
    return (
      this.#holding &&
      mine !== undefined &&
      owingHandBack(mine, this.#records, this.#view).length === 0
    );
  }

  /** Resolves once ready; UNAVAILABLE, saying what it waits for, after `timeoutMs`. */
  async whenReady(timeoutMs: number): Promise<void> {
    if (this.ready) return;
    const deadline = this.#now() + timeoutMs;
    while (!this.ready) {
      if (this.#joinError instanceof StarError) throw this.#joinError;
      const left = deadline - this.#now();
      if (left <= 0 || this.#closed) throw unavailable(this.#notReadyReason());
      await new Promise<void>((resolve) => {
        const wake = () => {
          clearTimeout(timer);
          this.#waiters.delete(wake);
          resolve();
        };
        const timer = setTimeout(wake, left);
        this.#waiters.add(wake);
      });
    }
  }

  #notReadyReason(): string {
    const mine = this.#mine?.record;
    if (!this.#holding || mine === undefined) {
      return `star ${this.#o.self} is joining its fleet (acquiring its lease); retry shortly`;
    }
    const owing = owingHandBack(mine, this.#records, this.#view);
    return (
      `star ${this.#o.self} is taking its streams back; waiting for ${owing.join(", ")} to hand ` +
      "them over; retry shortly"
    );
  }

  /** The member's log was fenced, or its lease could not be renewed in time. */
  lost(reason: string): void {
    if (!this.#holding) return;
    this.#holding = false;
    // The next holding's writes neither wait behind this one's nor take their answers.
    this.#holdings++;
    this.#writes = Promise.resolve();
    this.#renewing = undefined;
    this.stats.held = false;
    this.stats.lost++;
    this.#o.log.warn({ reason }, "lease lost: leading nothing until the star joins again");
    this.#setView();
    this.#o.onLost(reason);
    this.#rejoin();
  }

  /**
   * One round: renew, read the others, take over lapsed ones, hand back, wake waiters. The
   * renewal goes on beside the rest, not before it: a request that hangs (an S3 connection gone
   * silent, answered only by its timeouts and retries) must not stop this member from seeing a
   * takeover, taking over, or handing back. A renewal still unanswered a whole lease after it
   * was sent could not keep the lease even if it landed: the lease is lost (it may have been
   * taken over meanwhile) and this member joins again. A renewal merely slow keeps it (the
   * member is `lapsed` meanwhile, answering nothing from memory).
   */
  async tick(): Promise<void> {
    if (this.#closed) return;
    const started = this.#now();
    if (this.#renewing && started >= this.#renewing.sentAt + this.#o.leaseMs) {
      this.lost("no renewal was answered within a lease (--lease-ms)");
    }
    if (this.#holding && !this.#renewing) {
      const renewing = {
        sentAt: started,
        done: this.#renew(started).finally(() => {
          if (this.#renewing === renewing) this.#renewing = undefined;
        }),
      };
      this.#renewing = renewing;
    }
    if (this.#ticking) return;
    this.#ticking = true;
    try {
      await this.#readOthers();
      const now = this.#now();
      for (const m of this.#o.members) {
        const record = this.#records.get(m) ?? neverJoined(m);
        if (shouldTakeOver(record, this.#o.self, this.#watch, now)) {
          this.#background(m, () => this.#takeOver(m));
        }
      }
      this.#setView();
      const mine = this.#mine?.record;
      if (this.#holding && mine) {
        for (const { member, since } of handBacksOwed(mine, this.#records, this.#view)) {
          this.#background(`hand-back:${member}`, async () => {
            await this.#o.handBack(member);
            await this.#writeOwn((r) => ({ ...r, released: { ...r.released, [member]: since } }));
          });
        }
      }
    } catch (err) {
      this.#o.log.warn({ err }, "lease round failed; retried next round");
    } finally {
      this.#ticking = false;
      this.#wake();
    }
  }

  #wake(): void {
    if (this.ready) this.#wakeAll();
  }

  #wakeAll(): void {
    for (const wake of [...this.#waiters]) wake();
  }

  #background(what: string, work: () => Promise<void>): void {
    if (this.#busy.has(what) || this.#closed) return;
    const run = work()
      .catch((err: unknown) => this.#o.log.warn({ err, what }, "lease work failed; retried"))
      .finally(() => {
        this.#busy.delete(what);
        this.#wake();
      });
    this.#busy.set(what, run);
  }

  /** Resolves once the join, the renewal, and the takeovers and hand-backs under way have ended. */
  async settled(): Promise<void> {
    while (this.#joining || this.#renewing || this.#busy.size > 0) {
      await Promise.all([this.#joining, this.#renewing?.done, ...this.#busy.values()]);
    }
  }

  #rejoin(): void {
    this.#joining ??= this.#join()
      .then(
        () => {
          this.#joinError = undefined;
        },
        (err: unknown) => {
          this.#joinError = err;
          this.#o.log.warn({ err }, "joining the fleet failed; retried next round");
          this.#wakeAll();
        },
      )
      .finally(() => {
        this.#joining = undefined;
        if (!this.#holding && !this.#closed) {
          setTimeout(() => this.#rejoin(), this.#o.leaseMs / 4).unref();
        }
      });
  }

  async #read(member: string): Promise<Held | undefined> {
    const got = await this.#o.store.getVersioned(leaseKey(member));
    if (!got) return undefined;
    return { record: decodeLease(leaseKey(member), got.body), etag: got.etag };
  }

  async #put(record: LeaseRecord, condition: { ifMatch: string } | undefined) {
    return this.#o.store.putIf(
      leaseKey(record.member),
      encodeLease(record),
      condition ?? { ifNoneMatch: "*" },
    );
  }

  /** Reads every other member's lease, and this member's own while it does not hold it. */
  async #readOthers(): Promise<Map<string, Held | undefined>> {
    const reads = new Map<string, Held | undefined>();
    await Promise.all(
      this.#o.members
        .filter((m) => m !== this.#o.self || !this.#holding)
        .map(async (m) => {
          const read = await this.#read(m);
          reads.set(m, read);
          // Stamped when the read answered, not when it was sent: a renewal it carries may have
          // been made while it was on its way, and the holder's lease counts from then.
          this.#watch.observe(m, read?.etag, this.#now());
          if (read) this.#records.set(m, read.record);
          else this.#records.delete(m);
        }),
    );
    return reads;
  }

  /** A member that leads nothing has handed back everything: to each member at its `since`. */
  #releasedToAll(): Record<string, number> {
    const released: Record<string, number> = {};
    for (const r of this.#records.values()) {
      if (r.member !== this.#o.self) released[r.member] = r.since;
    }
    return released;
  }

  /**
   * A new epoch for this member. Its last epoch's log is voided and replayed first, unless the
   * member that fenced it did so; then its streams moved, and it leads them again only once
   * handed back (`since` is the new epoch).
   */
  async #join(): Promise<void> {
    const self = this.#o.self;
    for (;;) {
      if (this.#closed) return;
      // Not holding its lease, so this reads its own lease object too.
      const own = (await this.#readOthers()).get(self);
      let next: LeaseRecord;
      let over: string | undefined;
      if (!own) {
        // A new member, or one from before leases: its log, if any, is epoch 0's. Presumed to
        // lead its streams until now, it leads them on (`since` 0).
        await this.#o.replay(self, 0);
        next = { ...neverJoined(self), epoch: 1 };
      } else if (own.record.state === "fenced") {
        next = {
          member: self,
          epoch: own.record.epoch + 1,
          since: own.record.epoch + 1,
          state: "live",
          writes: own.record.writes + 1,
          released: {},
        };
        over = own.etag;
      } else {
        if (
          own.record.state === "fencing" &&
          own.record.by !== self &&
          own.record.failed === undefined
        ) {
          // Another member is taking this log over: wait for it, unless it stopped too (or
          // failed: then the replay here meets what it met, and says so to this star's callers).
          this.#watch.observe(self, own.etag, this.#now());
          if (!this.#watch.lapsed(self, this.#now())) {
            await this.#sleep(this.#o.leaseMs / 4);
            continue;
          }
        }
        const fencing = {
          ...own.record,
          state: "fencing" as const,
          by: self,
          writes: own.record.writes + 1,
        };
        const etag = await this.#put(fencing, { ifMatch: own.etag });
        if (etag === undefined) {
          await this.#contended();
          continue;
        }
        const epoch = own.record.epoch;
        // Held while the replay lasts, which may outlast a lease (a large unsettled log).
        const held = this.#hold({ record: fencing, etag });
        const replayed = await held.during(async () => {
          await fenceLog(this.#o.store, self, epoch, this.#o.logPutsInFlight, {
            member: self,
            epoch,
          });
          await this.#o.replay(self, epoch);
        });
        if (!replayed.held) continue;
        // Never fenced by another: nobody led its streams, which it leads again at once.
        const { by: _, ...kept } = own.record;
        const last = held.current;
        next = { ...kept, epoch: epoch + 1, state: "live", writes: last.record.writes + 1 };
        over = last.etag;
      }
      if (own?.record.state === "fenced") next.released = this.#releasedToAll();
      const sentAt = this.#now();
      const etag = await this.#put(next, over === undefined ? undefined : { ifMatch: over });
      if (etag === undefined) {
        await this.#contended();
        continue;
      }
      this.#mine = { record: next, etag };
      this.#records.set(self, next);
      this.#holding = true;
      this.#heldUntil = sentAt + this.#o.leaseMs;
      this.stats.held = true;
      this.stats.epoch = next.epoch;
      this.#o.begin(next.epoch);
      this.#o.log.info({ epoch: next.epoch, since: next.since }, "lease acquired");
      this.#setView();
      this.#wake();
      return;
    }
  }

  /**
   * This member's own lease object changed under its join: another member's takeover, or another
   * process running as this member (an old one still up beside its replacement), which would
   * otherwise take the object back and forth with it as fast as S3 answers. A quarter lease
   * passes before it reads again.
   */
  async #contended(): Promise<void> {
    this.#o.log.warn(
      "this star's lease object changed while it joined: another member took it over, or another process runs as this member; retrying",
    );
    await this.#sleep(this.#o.leaseMs / 4);
  }

  async #renew(sentAt: number): Promise<void> {
    const holding = this.#holdings;
    try {
      const renewed = await this.#writeOwn((r) => r);
      // A renewal answered after its holding was lost says nothing of the next one's.
      if (holding !== this.#holdings) return;
      if (renewed) {
        this.#heldUntil = sentAt + this.#o.leaseMs;
        this.stats.renewals++;
        return;
      }
      const own = await this.#read(this.#o.self);
      if (holding !== this.#holdings) return;
      const by = own?.record.by ?? "another member";
      this.lost(`star ${by} took over this star's log (its lease lapsed)`);
    } catch (err) {
      if (holding !== this.#holdings) return;
      if (this.#now() >= this.#heldUntil) {
        this.lost(`the lease could not be renewed in time: ${(err as Error).message}`);
      } else {
        this.#o.log.warn({ err }, "lease renewal failed; retried next round");
      }
    }
  }

  /** Writes this member's own record, changed by `change`; false when it is not ours any more. */
  #writeOwn(change: (r: LeaseRecord) => LeaseRecord): Promise<boolean> {
    const holding = this.#holdings;
    const run = this.#writes.then(async () => {
      const mine = this.#mine;
      if (!mine || !this.#holding || holding !== this.#holdings) return false;
      const next = { ...change(mine.record), writes: mine.record.writes + 1 };
      let etag: string | undefined;
      try {
        etag = await this.#put(next, { ifMatch: mine.etag });
      } catch (err) {
        // Its answer was lost, not necessarily the write: it may be the object's content now.
        if (holding === this.#holdings) this.#unanswered = next;
        throw err;
      }
      // Lost meanwhile: the join that follows reads the object afresh.
      if (holding !== this.#holdings) return false;
      if (etag === undefined) {
        const landed = await this.#landedUnanswered();
        if (!landed) return false;
        // A write of ours landed unanswered: the object is still ours, one write further.
        const again = { ...change(landed.record), writes: landed.record.writes + 1 };
        etag = await this.#put(again, { ifMatch: landed.etag });
        if (etag === undefined || holding !== this.#holdings) return false;
        this.#mine = { record: again, etag };
        this.#records.set(this.#o.self, again);
        return true;
      }
      this.#unanswered = undefined;
      this.#mine = { record: next, etag };
      this.#records.set(this.#o.self, next);
      return true;
    });
    this.#writes = run.catch(() => undefined);
    return run;
  }

  /** This member's own object, when it holds the write of ours whose answer was lost. */
  async #landedUnanswered(): Promise<Held | undefined> {
    const tried = this.#unanswered;
    this.#unanswered = undefined;
    if (!tried) return undefined;
    const own = await this.#o.store.getVersioned(leaseKey(this.#o.self));
    return own?.body.equals(encodeLease(tried)) ? { record: tried, etag: own.etag } : undefined;
  }

  /** Voids and replays a lapsed member's log, then marks it fenced: its streams move. */
  async #takeOver(member: string): Promise<void> {
    const read = await this.#read(member);
    const record = read?.record ?? neverJoined(member);
    // Read again: another member may have begun the takeover since (a new ETag, lapsing anew).
    this.#watch.observe(member, read?.etag, this.#now());
    if (!shouldTakeOver(record, this.#o.self, this.#watch, this.#now())) return;
    const me = this.#mine?.record;
    if (!this.#holding || !me) return;
    const fencing = {
      ...record,
      state: "fencing" as const,
      by: this.#o.self,
      writes: record.writes + 1,
    };
    const etag = await this.#put(fencing, read && { ifMatch: read.etag });
    if (etag === undefined) return;
    const epoch = record.epoch;
    this.#o.log.warn({ member, epoch }, "taking over a member whose lease lapsed");
    const held = this.#hold({ record: fencing, etag });
    const { value } = await held.during(async () => {
      const fence = await fenceLog(this.#o.store, member, epoch, this.#o.logPutsInFlight, {
        member: this.#o.self,
        epoch: me.epoch,
      });
      // A failed replay is said in the record (the member meets it when it rejoins).
      const failed = await this.#o.replay(member, epoch).then(
        () => undefined,
        (err: unknown) => err as Error,
      );
      return { fence, failed };
    });
    if (value.failed) {
      await held.write((r) => ({ ...r, failed: value.failed?.message }));
      throw value.failed;
    }
    if (!(await held.write((r) => ({ ...r, state: "fenced" })))) return;
    // Its answer lost, the write may not have landed: the next round sees.
    if (held.current.record.state !== "fenced") return;
    this.#records.set(member, held.current.record);
    this.stats.takeovers++;
    this.#o.log.warn(
      { member, epoch, voided: value.fence.voided.map(String) },
      "took over a member's log: its streams move to the members left",
    );
    this.#setView();
  }

  #hold(held: Held): HeldRecord {
    return new HeldRecord(held, (r, ifMatch) => this.#put(r, { ifMatch }), this.#o.leaseMs);
  }

  #setView(): void {
    const view = viewOf(this.#o.members, this.#records, this.#o.self, this.#holding);
    if (view.join(",") === this.#view.join(",")) return;
    this.#view = view;
    this.#o.onView(view);
  }
}
