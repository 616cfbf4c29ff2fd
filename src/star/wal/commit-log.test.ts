// The star's commit log over the in-memory store: commits of many streams share log objects,
// nothing resolves before its PUT and every PUT before it, a failed PUT rejects and its number
// is voided, a number another member voided fences the log, PUTs in flight are capped, and
// settled log objects are deleted.
import assert from "node:assert/strict";
import { test } from "node:test";
import {
  decodeLogObject,
  decodeLogVoid,
  encodeLogVoid,
  type LogEntry,
} from "../../contract/codec/index.ts";
import { createMemoryStore, type PutCondition } from "../../platform/objstore/index.ts";
import { fenceLog } from "../fleet/log-fence.ts";
import { firstLogNumber, logKey, logPrefix } from "../storage/keys.ts";
import { CommitLog } from "./commit-log.ts";

const entry = (streamId: string, first: bigint, n = 1): LogEntry => ({
  streamId,
  bucket: "b",
  key: streamId,
  firstSeqNum: first,
  records: Array.from({ length: n }, () => ({
    headers: [],
    body: Buffer.from("x"),
    timestampMs: 1n,
  })),
});

/**
 * A memory store whose log object PUTs (not voids) wait for `release()`, and land but fail
 * while `failing` is set.
 */
function gatedStore() {
  const inner = createMemoryStore();
  const state = { failing: false, inFlight: 0, maxInFlight: 0, gates: [] as (() => void)[] };
  const store = new Proxy(inner, {
    get(target, name) {
      if (name === "putIf") {
        return async (key: string, body: Uint8Array, condition: PutCondition) => {
          if (decodeLogVoid(body)) return inner.putIf(key, body, condition);
          state.inFlight++;
          state.maxInFlight = Math.max(state.maxInFlight, state.inFlight);
          await new Promise<void>((resolve) => state.gates.push(resolve));
          state.inFlight--;
          const etag = await inner.putIf(key, body, condition);
          if (state.failing) throw new Error("connection reset");
          return etag;
        };
      }
      const value = Reflect.get(target, name);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  const release = () => {
    for (const open of state.gates.splice(0)) open();
  };
  return { store, state, release };
}

async function waitFor(check: () => boolean | Promise<boolean>): Promise<void> {
  const deadline = performance.now() + 5_000;
  while (!(await check())) {
    if (performance.now() > deadline) throw new Error("condition not met within 5 s");
    await new Promise((r) => setTimeout(r, 1));
  }
}

const keys = async (store: ReturnType<typeof createMemoryStore>) =>
  (await store.list(logPrefix("s"))).objects.map((o) => o.key);

function newLog(
  store: ReturnType<typeof createMemoryStore>,
  maxPutsInFlight = 1,
  more: { onFenced?: (by: string) => void } = {},
) {
  const log = new CommitLog(store, "s", {
    commitIntervalMs: 0,
    maxObjectBytes: 1 << 20,
    maxPutsInFlight,
    ...more,
  });
  log.begin(0n);
  return log;
}

test("commits waiting for a PUT go into the next log object together, and resolve only after it", async () => {
  const { store, release } = gatedStore();
  const log = newLog(store);
  let resolved = 0;
  const first = log.append(entry("a", 0n), 1).then(() => resolved++);
  await new Promise((r) => setImmediate(r));
  const rest = ["b", "c", "d"].map((id) => log.append(entry(id, 0n), 1).then(() => resolved++));
  await new Promise((r) => setImmediate(r));
  assert.equal(resolved, 0, "nothing resolves before its PUT");
  release();
  await first;
  await new Promise((r) => setImmediate(r));
  release();
  await Promise.all(rest);
  const objects = await keys(store);
  assert.equal(objects.length, 2);
  const second = decodeLogObject((await store.get(objects[1] as string)) as Buffer);
  assert.deepEqual(
    second.map((e) => e.streamId),
    ["b", "c", "d"],
  );
  assert.equal(log.puts, 2);
});

test("at most maxPutsInFlight PUTs at once", async () => {
  const { store, state, release } = gatedStore();
  const log = newLog(store, 2);
  const all: Promise<void>[] = [];
  for (let i = 0; i < 6; i++) {
    all.push(log.append(entry(`s${i}`, 0n), 1));
    await new Promise((r) => setImmediate(r));
  }
  const timer = setInterval(release, 1);
  await Promise.all(all);
  clearInterval(timer);
  assert.equal(state.maxInFlight, 2);
});

test("a failed PUT rejects its commits and its number is voided, though it landed; the next number follows", async () => {
  const { store, state, release } = gatedStore();
  const log = newLog(store);
  state.failing = true;
  const failed = log.append(entry("a", 0n), 1);
  release();
  await assert.rejects(failed, /connection reset/);
  state.failing = false;
  const next = log.append(entry("a", 0n), 1);
  await waitFor(() => state.gates.length === 1);
  release();
  await next;
  const [voided, written] = await keys(store);
  assert.deepEqual(decodeLogVoid((await store.get(voided as string)) as Buffer), {
    by: "s",
    epoch: 0,
  });
  assert.equal(decodeLogObject((await store.get(written as string)) as Buffer).length, 1);
});

test("while a failed number cannot be voided, appends are refused at once, then go on", async () => {
  const { store, state, release } = gatedStore();
  let voidsRefused = true;
  const flaky = new Proxy(store, {
    get(target, name) {
      const value = Reflect.get(target, name);
      if (name !== "putIf") return typeof value === "function" ? value.bind(target) : value;
      return (key: string, body: Uint8Array, condition: PutCondition) => {
        if (voidsRefused && decodeLogVoid(body)) return Promise.reject(new Error("ENOSPC"));
        return value.call(target, key, body, condition);
      };
    },
  });
  const log = newLog(flaky as typeof store);
  state.failing = true;
  const failed = log.append(entry("a", 0n), 1);
  const waiting = log.append(entry("b", 0n), 1);
  // Refused while this test waits on the first: handled from the start.
  waiting.catch(() => {});
  release();
  await assert.rejects(failed, /connection reset/);
  // Held behind the number being voided: refused, as nothing of it was written.
  const deadline = new Promise<never>((_, reject) => {
    setTimeout(() => reject(new Error("still held after 5 s")), 5_000).unref();
  });
  await assert.rejects(Promise.race([waiting, deadline]), /refused the star's log \(ENOSPC\)/);
  await assert.rejects(log.append(entry("c", 0n), 1), /nothing was appended; retry/);
  state.failing = false;
  voidsRefused = false;
  // The failed number's object landed; once it is voided the log goes on.
  await waitFor(async () => {
    const [first] = await keys(store);
    return first !== undefined && decodeLogVoid((await store.get(first)) as Buffer) !== undefined;
  });
  const next = log.append(entry("d", 0n), 1);
  await waitFor(() => state.gates.length === 1);
  release();
  await next;
});

test("a void refused once (a blip) holds the appends behind it, which then go on", async () => {
  const { store, state, release } = gatedStore();
  let refusals = 1;
  const blip = new Proxy(store, {
    get(target, name) {
      const value = Reflect.get(target, name);
      if (name !== "putIf") return typeof value === "function" ? value.bind(target) : value;
      return (key: string, body: Uint8Array, condition: PutCondition) => {
        if (refusals > 0 && decodeLogVoid(body)) {
          refusals--;
          return Promise.reject(new Error("503 SlowDown"));
        }
        return value.call(target, key, body, condition);
      };
    },
  });
  const log = newLog(blip as typeof store);
  state.failing = true;
  const failed = log.append(entry("a", 0n), 1);
  const behind = log.append(entry("b", 0n), 1);
  release();
  await assert.rejects(failed, /connection reset/);
  state.failing = false;
  await waitFor(() => state.gates.length === 1);
  release();
  await behind;
});

test("commits resolve in log order: a PUT that lands first waits for the one before it", async () => {
  const { store, state } = gatedStore();
  const log = newLog(store, 2);
  const order: string[] = [];
  const a = log.append(entry("a", 0n), 1).then(() => order.push("a"));
  await waitFor(() => state.gates.length === 1);
  const b = log.append(entry("b", 0n), 1).then(() => order.push("b"));
  await waitFor(() => state.gates.length === 2);
  state.gates[1]?.();
  await waitFor(async () => (await keys(store)).length === 1);
  await new Promise((r) => setImmediate(r));
  assert.deepEqual(order, [], "b landed, and waits for a");
  state.gates[0]?.();
  await Promise.all([a, b]);
  assert.deepEqual(order, ["a", "b"]);
});

test("a number another member voided fences the log: nothing in flight or after resolves", async () => {
  const { store, state } = gatedStore();
  const fencedBy: string[] = [];
  const log = newLog(store, 2, { onFenced: (by) => fencedBy.push(by) });
  const a = log.append(entry("a", 0n), 1);
  await waitFor(() => state.gates.length === 1);
  const b = log.append(entry("b", 0n), 1);
  await waitFor(() => state.gates.length === 2);
  // b lands first; then s2 voids a's number before a's PUT arrives.
  state.gates[1]?.();
  await waitFor(async () => (await keys(store)).length === 1);
  await store.putIf(logKey("s", 0n), encodeLogVoid({ by: "s2", epoch: 4 }), { ifNoneMatch: "*" });
  state.gates[0]?.();
  await assert.rejects(a, /star s lost its lease: s2 took over its log/);
  await assert.rejects(b, /lost its lease/);
  await assert.rejects(log.append(entry("c", 0n), 1), /lost its lease/);
  assert.deepEqual(fencedBy, ["s2"]);
});

test("a log object is deleted once every stream in it has settled past its entry, unless the newest", async () => {
  const { store, release } = gatedStore();
  const log = newLog(store);
  const first = log.append(entry("a", 0n), 1);
  await new Promise((r) => setImmediate(r));
  // b and c wait for a's PUT, then share the second log object.
  const shared = [log.append(entry("b", 0n, 3), 3), log.append(entry("c", 5n, 2), 2)];
  release();
  await first;
  await new Promise((r) => setImmediate(r));
  release();
  await Promise.all(shared);
  const [ofA, ofBC] = await keys(store);
  assert.equal(log.outstanding, 2);
  log.settled("b", 2n);
  log.settled("a", 1n);
  await log.deleteSettled();
  assert.deepEqual(await keys(store), [ofBC], "a's is gone; b ends at 3, not settled yet");
  log.settled("b", 3n);
  await log.deleteSettled();
  assert.deepEqual(await keys(store), [ofBC], "c is not settled yet");
  log.forget("c");
  await log.deleteSettled();
  assert.deepEqual(await keys(store), [ofBC], "settled, but the newest resolved: it stays");
  assert.equal(log.outstanding, 1);
  assert.ok(ofA !== undefined);
});

test("a settled log object stays while it is the newest resolved, then goes", async () => {
  const { store, state, release } = gatedStore();
  const log = newLog(store);
  const first = log.append(entry("a", 0n), 1);
  await waitFor(() => state.gates.length === 1);
  release();
  await first;
  const [ofA] = await keys(store);
  log.settled("a", 1n);
  await log.deleteSettled();
  assert.deepEqual(await keys(store), [ofA], "the log's high-water mark stays");
  const later = log.append(entry("b", 0n), 1);
  await waitFor(() => state.gates.length === 1);
  release();
  await later;
  await log.deleteSettled();
  const left = await keys(store);
  assert.equal(left.length, 1, "once a later one resolved, it goes");
  assert.notEqual(left[0], ofA);
});

test("a new epoch refuses what the last one took and had not acknowledged, and writes none of it", async () => {
  const { store, state, release } = gatedStore();
  const log = newLog(store);
  const inFlight = log.append(entry("a", 0n), 1);
  await waitFor(() => state.gates.length === 1);
  const waiting = log.append(entry("b", 0n), 1);
  // The lease was lost by a failed renewal (no fence met) and the star rejoined.
  log.begin(firstLogNumber(1));
  const refused = Promise.all([
    assert.rejects(inFlight, /began a new epoch/),
    assert.rejects(waiting, /began a new epoch/),
  ]);
  // The earlier epoch's PUT lands after all: still not acknowledged.
  release();
  await refused;
  const fresh = log.append(entry("c", 0n), 1);
  await waitFor(() => state.gates.length === 1);
  release();
  await fresh;
  const written = await Promise.all(
    (await keys(store)).map(async (key) =>
      decodeLogObject((await store.get(key)) as Buffer).map((e) => e.streamId),
    ),
  );
  assert.ok(!written.flat().includes("b"), `b was written: ${JSON.stringify(written)}`);
  assert.ok(written.flat().includes("c"));
});

test("a failed number of the last epoch, still being voided, never fences the epoch that began", async (t) => {
  // The void's retry waits on setTimeout: the test moves that clock.
  t.mock.timers.enable({ apis: ["setTimeout"] });
  const inner = createMemoryStore();
  const down = { log: false };
  // The store refuses every log request for a moment: a PUT fails, and its void is retried.
  const store = new Proxy(inner, {
    get(target, name) {
      const value = Reflect.get(target, name);
      if (typeof value !== "function") return value;
      return (...args: unknown[]) =>
        down.log && String(args[0]).startsWith(logPrefix("z"))
          ? Promise.reject(new Error("503 SlowDown"))
          : Reflect.apply(value, target, args);
    },
  });
  const fenced: string[] = [];
  const log = new CommitLog(store, "z", {
    commitIntervalMs: 0,
    maxObjectBytes: 1 << 20,
    maxPutsInFlight: 2,
    onFenced: (by) => fenced.push(by),
  });
  log.begin(firstLogNumber(1));
  await log.append(entry("a", 0n), 1);
  down.log = true;
  await assert.rejects(log.append(entry("a", 1n), 1), /SlowDown/);
  down.log = false;
  // The star rejoins: it fences its own last epoch (voiding the failed number as its epoch 2)
  // and begins epoch 2, while the failed number's void waits to be tried again.
  await fenceLog(store, "z", 1, 2, { member: "z", epoch: 2 });
  log.begin(firstLogNumber(2));
  t.mock.timers.tick(10_000);
  for (let i = 0; i < 20; i++) await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(fenced, []);
  await log.append(entry("a", 1n), 1);
  log.close();
});
