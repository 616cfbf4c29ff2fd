// The lease keeper on the in-memory store and a manual clock: three members join, a member that
// stops renewing is taken over once (its log voided, replayed, marked fenced) and its streams
// leave every view; it rejoins and leads only after the others hand its streams back; a zombie
// that resumes after it was taken over finds out at its next renewal and rejoins.
import assert from "node:assert/strict";
import { test } from "node:test";
import pino from "pino";
import { waitFor } from "../../../test/harness/wait.ts";
import { decodeLogVoid } from "../../contract/codec/index.ts";
import {
  createMemoryStore,
  type ObjectStore,
  type PutCondition,
} from "../../platform/objstore/index.ts";
import { withMethods } from "../../platform/objstore/store-overrides.test-helper.ts";
import { firstLogNumber, logKey } from "../storage/keys.ts";
import { LeaseKeeper } from "./lease-keeper.ts";
import { decodeLease, leaseKey } from "./lease-record.ts";

const LEASE = 1000;
const MEMBERS = ["a", "b", "c"];

interface Member {
  keeper: LeaseKeeper;
  replays: string[];
  handBacks: string[];
  lost: string[];
  views: string[][];
  epochs: number[];
}

/** `replaying`, when given, is what each replay waits for. */
function member(
  store: ObjectStore,
  clock: { now: number },
  self: string,
  replaying?: () => Promise<void>,
): Member {
  const m: Member = {
    replays: [],
    handBacks: [],
    lost: [],
    views: [],
    epochs: [],
    keeper: undefined as unknown as LeaseKeeper,
  };
  m.keeper = new LeaseKeeper({
    store,
    self,
    members: MEMBERS,
    leaseMs: LEASE,
    logPutsInFlight: 2,
    log: pino({ level: "silent" }),
    now: () => clock.now,
    replay: async (who, epoch) => {
      m.replays.push(`${who}@${epoch}`);
      await replaying?.();
    },
    begin: (epoch) => m.epochs.push(epoch),
    onView: (view) => m.views.push([...view]),
    handBack: async (who) => {
      m.handBacks.push(who);
    },
    onLost: (reason) => m.lost.push(reason),
  });
  return m;
}

async function rounds(members: Member[], n = 1): Promise<void> {
  for (let i = 0; i < n; i++) {
    for (const m of members) {
      await m.keeper.tick();
      await m.keeper.settled();
    }
  }
}

async function lease(store: ObjectStore, who: string) {
  const got = await store.get(leaseKey(who));
  return got && decodeLease(leaseKey(who), got);
}

async function fleet() {
  const store = createMemoryStore();
  const clock = { now: 0 };
  const [a, b, c] = MEMBERS.map((name) => member(store, clock, name)) as [Member, Member, Member];
  for (const m of [a, b, c]) await m.keeper.join();
  await rounds([a, b, c]);
  // From here c is silent: a and b read its last renewal now.
  await rounds([a, b]);
  return { store, clock, a, b, c };
}

test("members join with epoch 1 and lead at once: nobody led their streams before", async () => {
  const { a, b, c } = await fleet();
  for (const m of [a, b, c]) {
    assert.deepEqual(m.epochs, [1]);
    assert.equal(m.keeper.ready, true);
    assert.deepEqual(m.keeper.view, MEMBERS);
    assert.deepEqual(m.replays, [`${MEMBERS[[a, b, c].indexOf(m)]}@0`], "its pre-lease log");
    assert.deepEqual(m.handBacks, []);
  }
});

test("a member that stops renewing is taken over once, after a lease, and leaves every view", async () => {
  const { store, clock, a, b, c } = await fleet();
  clock.now += LEASE - 1;
  await rounds([a, b]);
  assert.deepEqual(a.keeper.view, MEMBERS, "not before a whole lease");
  clock.now += 1;
  await rounds([a, b], 2);
  const record = await lease(store, "c");
  assert.equal(record?.state, "fenced");
  const fencer = record?.by === "a" ? a : b;
  const other = fencer === a ? b : a;
  assert.deepEqual(fencer.replays.slice(1), ["c@1"]);
  assert.deepEqual(other.replays.slice(1), [], "one member takes it over");
  assert.equal(fencer.keeper.stats.takeovers, 1);
  assert.deepEqual(a.keeper.view, ["a", "b"]);
  assert.deepEqual(b.keeper.view, ["a", "b"]);
  // c's log is voided from its first number of epoch 1: nothing it writes there can be acked.
  const voided = await store.get(logKey("c", firstLogNumber(1)));
  assert.deepEqual(decodeLogVoid(voided as Buffer), { by: fencer === a ? "a" : "b", epoch: 1 });
  void c;
});

test("a renewal read by a slow GET counts from when the read answered: no takeover before it ends", async () => {
  const inner = createMemoryStore();
  const held: { gate?: Promise<void> } = {};
  // b's reads of a's lease wait on the gate while it is set.
  const slow = withMethods(inner, {
    getVersioned: async (key: string) => {
      const gate = key === leaseKey("a") ? held.gate : undefined;
      held.gate = undefined;
      if (gate) await gate;
      return inner.getVersioned(key);
    },
  });
  const clock = { now: 0 };
  const a = member(inner, clock, "a");
  const b = member(slow, clock, "b");
  const c = member(inner, clock, "c");
  for (const m of [a, b, c]) await m.keeper.join();
  await rounds([a, b, c]);
  clock.now = 250;
  let open = () => {};
  held.gate = new Promise<void>((resolve) => {
    open = resolve;
  });
  // b's round starts at 250 and its read of a's lease is slow; a renews at 300 meanwhile.
  const round = b.keeper.tick();
  await new Promise((resolve) => setImmediate(resolve));
  clock.now = 300;
  await rounds([a, c]);
  open();
  await round;
  await b.keeper.settled();
  // a is paused from here: by its own clock it holds until 300 + a lease.
  clock.now = 300 + LEASE - 1;
  await rounds([b, c]);
  assert.equal((await lease(inner, "a"))?.state, "live", "not taken over while it holds");
  assert.ok(b.keeper.view.includes("a"));
  clock.now = 300 + LEASE + 1;
  await rounds([b, c], 2);
  assert.equal((await lease(inner, "a"))?.state, "fenced", "taken over once it lapsed");
});

test("a renewal that landed but whose answer was lost keeps the lease: the next one goes on", async () => {
  const inner = createMemoryStore();
  const lost = { next: false };
  const store = withMethods(inner, {
    putIf: async (key: string, body: Uint8Array, condition: PutCondition) => {
      const etag = await inner.putIf(key, body, condition);
      if (key === leaseKey("a") && lost.next) {
        lost.next = false;
        throw new Error("socket timeout (the PUT landed)");
      }
      return etag;
    },
  });
  const clock = { now: 0 };
  const members = MEMBERS.map((name) => member(store, clock, name));
  const a = members[0] as Member;
  for (const m of members) await m.keeper.join();
  await rounds(members);
  clock.now += LEASE / 4;
  lost.next = true;
  await rounds(members);
  clock.now += LEASE / 4;
  await rounds(members);
  assert.deepEqual(a.lost, []);
  assert.equal(a.keeper.holds, true);
  assert.equal(a.keeper.stats.renewals >= 2, true, String(a.keeper.stats.renewals));
  assert.equal((await lease(inner, "a"))?.state, "live");
});

test("renewals that each take most of a lease keep it: a slow store is not a lost lease", async () => {
  const inner = createMemoryStore();
  const clock = { now: 0 };
  // While `slow`, each of a's writes of its lease waits until the test answers it.
  const waiting: { sentAt: number; answer: () => void }[] = [];
  let slow = false;
  const store = withMethods(inner, {
    putIf: async (key: string, body: Uint8Array, condition: PutCondition) => {
      if (slow && key === leaseKey("a")) {
        await new Promise<void>((answer) => waiting.push({ sentAt: clock.now, answer }));
      }
      return inner.putIf(key, body, condition);
    },
  });
  const a = member(store, clock, "a");
  const [b, c] = ["b", "c"].map((name) => member(inner, clock, name)) as [Member, Member];
  for (const m of [a, b, c]) await m.keeper.join();
  await rounds([a, b, c]);
  slow = true;
  // Three leases of rounds; each renewal is answered at the first round 0.6 of a lease after it
  // was sent (so 0.75 of a lease), and the next goes out at the round after.
  for (let i = 0; i < 12; i++) {
    clock.now += LEASE / 4;
    const due = waiting.filter((w) => clock.now - w.sentAt >= 0.6 * LEASE);
    for (const w of due) {
      const renewals = a.keeper.stats.renewals;
      waiting.splice(waiting.indexOf(w), 1);
      w.answer();
      await waitFor(() => a.keeper.stats.renewals > renewals, { message: "the renewal's answer" });
    }
    await a.keeper.tick();
    await rounds([b, c]);
  }
  assert.deepEqual(a.lost, []);
  assert.equal(a.keeper.stats.epoch, 1);
  assert.ok(a.keeper.stats.renewals >= 4, String(a.keeper.stats.renewals));
  assert.equal((await lease(inner, "a"))?.state, "live");
  assert.equal(b.keeper.stats.takeovers + c.keeper.stats.takeovers, 0);
  slow = false;
  for (const w of waiting) w.answer();
});

test("a renewal that hangs does not stop the rounds; unanswered for a lease, the lease is lost", async () => {
  const inner = createMemoryStore();
  // a's next renewal hangs until released (an S3 connection gone silent), then is answered.
  const hang: { next: boolean; release?: () => void } = { next: false };
  const store = withMethods(inner, {
    putIf: async (key: string, body: Uint8Array, condition: PutCondition) => {
      if (key === leaseKey("a") && hang.next) {
        hang.next = false;
        await new Promise<void>((resolve) => {
          hang.release = resolve;
        });
      }
      return inner.putIf(key, body, condition);
    },
  });
  const clock = { now: 0 };
  const [a, b, c] = MEMBERS.map((name) => member(store, clock, name)) as [Member, Member, Member];
  for (const m of [a, b, c]) await m.keeper.join();
  await rounds([a, b, c]);
  hang.next = true;
  // A lease passes; a's rounds go on beside the hung renewal (a round that waited for it would
  // hold this loop: the deadline fails it instead).
  for (let i = 0; i < 5; i++) {
    clock.now += LEASE / 4;
    await Promise.race([
      a.keeper.tick(),
      new Promise((_, reject) => {
        setTimeout(() => reject(new Error("a's round waited for its hung renewal")), 5_000).unref();
      }),
    ]);
    await rounds([b, c]);
  }
  assert.ok(hang.release, "a's renewal hung");
  assert.deepEqual(a.lost.length, 1);
  assert.match(a.lost[0] as string, /no renewal was answered within a lease/);
  // It joined again (a new epoch), and is handed its streams back.
  await a.keeper.settled();
  await rounds([b, c, a], 2);
  assert.deepEqual(a.epochs, [1, 2]);
  assert.equal(a.keeper.ready, true);
  // The hung renewal answers at last (refused: the object moved on); the new holding stands.
  hang.release?.();
  await rounds([a, b, c], 2);
  assert.deepEqual(a.lost.length, 1);
  assert.equal(a.keeper.holds, true);
  assert.equal(a.keeper.stats.epoch, 2);
  assert.equal((await lease(inner, "a"))?.epoch, 2);
  assert.equal((await lease(inner, "a"))?.state, "live");
});

test("a taken-over member rejoins with a new epoch and leads once every member handed back", async () => {
  const { store, clock, a, b } = await fleet();
  clock.now += LEASE;
  await rounds([a, b], 2);
  const back = member(store, clock, "c");
  await back.keeper.join();
  assert.deepEqual(back.epochs, [2]);
  assert.deepEqual(back.replays, [], "the member that fenced it replayed its log");
  assert.equal(back.keeper.ready, false, "its streams are still led by a and b");
  assert.deepEqual(back.keeper.view, MEMBERS);
  await rounds([a]);
  await back.keeper.tick();
  assert.equal(back.keeper.ready, false, "b has not handed back yet");
  await rounds([b]);
  await back.keeper.tick();
  assert.equal(back.keeper.ready, true);
  assert.deepEqual(a.handBacks, ["c"]);
  assert.deepEqual(b.handBacks, ["c"]);
  assert.deepEqual(a.keeper.view, MEMBERS);
  assert.equal((await lease(store, "c"))?.since, 2);
});

test("a zombie taken over while paused learns it at its next renewal, leads nothing, and rejoins", async () => {
  const { store, clock, a, b, c } = await fleet();
  clock.now += LEASE;
  await rounds([a, b], 2);
  assert.equal((await lease(store, "c"))?.state, "fenced");
  // c resumes with its lease in memory, past it by its own clock; its renewal fails.
  assert.deepEqual([c.keeper.lapsed, c.keeper.holds], [true, false]);
  assert.deepEqual([a.keeper.lapsed, a.keeper.holds], [false, true]);
  await c.keeper.tick();
  await c.keeper.settled();
  assert.equal(c.lost.length, 1);
  assert.match(c.lost[0] as string, /took over this star's log/);
  assert.equal(c.keeper.stats.lost, 1);
  assert.deepEqual(c.epochs, [1, 2], "it joined again with epoch 2");
  assert.equal(c.keeper.ready, false);
  await rounds([a, b, c]);
  assert.equal(c.keeper.ready, true);
  assert.deepEqual([c.keeper.lapsed, c.keeper.holds], [false, true]);
});

test("a member restarted before its lease lapsed replays its own log and leads on at once", async () => {
  const { store, clock, a, b } = await fleet();
  clock.now += LEASE / 2;
  const again = member(store, clock, "c");
  await again.keeper.join();
  assert.deepEqual(again.replays, ["c@1"]);
  assert.deepEqual(again.epochs, [2]);
  assert.equal(again.keeper.ready, true, "nobody took its streams: since stays 0");
  await rounds([a, b, again], 2);
  assert.deepEqual(a.keeper.view, MEMBERS);
  assert.deepEqual(a.handBacks, []);
  assert.equal((await lease(store, "c"))?.state, "live");
});

test("a member restarted within its lease whose replay outlasts a lease is not taken over meanwhile", async () => {
  const { store, clock, a, b } = await fleet();
  let finish!: () => void;
  const slow = new Promise<void>((resolve) => {
    finish = resolve;
  });
  const again = member(store, clock, "c", () => slow);
  const joined = again.keeper.join();
  await waitFor(() => again.replays.length > 0, { message: "c to replay its own log" });
  // Six quarter leases pass while c replays; each time the others read its lease object after
  // c rewrote it (its quarter-lease beat, on the real clock).
  for (let i = 0; i < 6; i++) {
    const writes = (await lease(store, "c"))?.writes ?? 0;
    await waitFor(async () => ((await lease(store, "c"))?.writes ?? 0) > writes, {
      timeoutMs: 3_000,
      message: "c to rewrite its lease object while it replays",
    });
    clock.now += LEASE / 4;
    await rounds([a, b]);
  }
  finish();
  await joined;
  assert.equal((await lease(store, "c"))?.state, "live");
  assert.deepEqual(again.epochs, [2]);
  assert.equal(again.keeper.ready, true, "nobody took its streams: it leads on at once");
  assert.deepEqual(
    [...a.replays, ...b.replays].filter((r) => r.startsWith("c@")),
    [],
  );
});

test("a join whose own lease object changes under it waits a quarter lease before it reads again", async () => {
  const inner = createMemoryStore();
  // Another process running as "a" rewrites a's object under each of its first two writes.
  let contended = 2;
  const store = withMethods(inner, {
    putIf: async (key: string, body: Uint8Array, condition: PutCondition) => {
      if (key === leaseKey("a") && contended > 0) {
        contended--;
        return undefined;
      }
      return inner.putIf(key, body, condition);
    },
  });
  const clock = { now: 0 };
  const first = member(inner, clock, "a");
  await first.keeper.join();
  const slept: number[] = [];
  const again = new LeaseKeeper({
    store,
    self: "a",
    members: MEMBERS,
    leaseMs: LEASE,
    logPutsInFlight: 2,
    log: pino({ level: "silent" }),
    now: () => clock.now,
    sleep: async (ms) => {
      slept.push(ms);
    },
    replay: async () => {},
    begin: () => {},
    onView: () => {},
    handBack: async () => {},
    onLost: () => {},
  });
  await again.join();
  assert.deepEqual(slept, [LEASE / 4, LEASE / 4]);
  assert.equal(again.stats.epoch, 2);
});

test("a member that never joined is taken over after a lease from when it was first missed", async () => {
  const store = createMemoryStore();
  const clock = { now: 0 };
  const a = member(store, clock, "a");
  const b = member(store, clock, "b");
  await a.keeper.join();
  await b.keeper.join();
  await rounds([a, b]);
  assert.deepEqual(a.keeper.view, MEMBERS, "c is presumed to lead its streams");
  clock.now += LEASE;
  await rounds([a, b], 2);
  assert.deepEqual(a.keeper.view, ["a", "b"]);
  const record = await lease(store, "c");
  assert.equal(record?.state, "fenced");
  assert.equal(record?.epoch, 0);
});

test("of two members that saw a lease lapse, the one that reads the other's takeover stands back", async () => {
  const { store, clock, a, b } = await fleet();
  clock.now += LEASE;
  // Both read c's lapsed lease in their rounds; a starts the takeover first.
  await a.keeper.tick();
  await b.keeper.tick();
  await Promise.all([a.keeper.settled(), b.keeper.settled()]);
  await rounds([a, b], 2);
  assert.equal((await lease(store, "c"))?.state, "fenced");
  assert.equal(a.replays.length + b.replays.length, 3, "c@1 replayed once, besides their own");
  assert.equal(a.keeper.stats.takeovers + b.keeper.stats.takeovers, 1);
});
