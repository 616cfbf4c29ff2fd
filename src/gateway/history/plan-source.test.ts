import assert from "node:assert/strict";
import { test } from "node:test";
import type { ReadPlanEntry__Output } from "../../gen/nova/v1/ReadPlanEntry.ts";
import type { Upstream } from "../upstream/index.ts";
import { fetchPlan, type PlanRequest, plannedEntries } from "./plan-source.ts";
import { newTimings } from "./timings.ts";

/** Chunks of 10 records from seq 0; each plan vends `cap` of them from the asked seq_num. */
function planningStar(cap: number, chunks: number, expiresInMs: number, clock: { now: number }) {
  const asked: string[] = [];
  const limits: number[] = [];
  const entry = (first: number): ReadPlanEntry__Output => ({
    location: "url",
    url: `http://s.test/b/c${first}?sig=${asked.length}`,
    footer_off: "100",
    footer_len: 53,
    payload_bytes: "100",
    first_seq_num: String(first),
    min_timestamp_ms: "0",
    max_timestamp_ms: "0",
  });
  const upstream = {
    unary: (async (method: string, req: { seq_num?: string; limit?: number }) => {
      if (method === "CheckTail")
        return { tail: { seq_num: String(chunks * 10), timestamp_ms: "0" } };
      asked.push(req.seq_num ?? "?");
      limits.push(req.limit ?? 0);
      const from = Math.floor(Number(req.seq_num) / 10);
      const firsts: number[] = [];
      for (let c = from; c < chunks && firsts.length < cap; c++) firsts.push(c * 10);
      const last = firsts.at(-1);
      return {
        entries: firsts.map(entry),
        vended_until: String(last === undefined ? Number(req.seq_num) : last + 10),
        more: last !== undefined && last + 10 < chunks * 10,
        expires_at_unix_ms: String(clock.now + expiresInMs),
      };
    }) as Upstream["unary"],
  };
  return { upstream, asked, limits };
}

function request(upstream: Pick<Upstream, "unary">, clock: { now: number }): PlanRequest {
  return {
    upstream,
    address: { bucket: "b", key: "k" },
    start: { seq_num: "0" },
    limit: 1,
    maxLimit: 4,
    clamp: false,
    call: {},
    timings: newTimings(),
    now: () => clock.now,
  };
}

async function collect(req: PlanRequest, from: string, onEntry: () => void = () => {}) {
  const out: { first: string; end: string | undefined }[] = [];
  for await (const p of plannedEntries(req, await fetchPlan(req, { seq_num: from }))) {
    out.push({ first: p.entry.firstSeqNum.toString(), end: p.end?.toString() });
    onEntry();
  }
  return out;
}

test("entries in order with their ends, re-planning from vended_until while more", async () => {
  const clock = { now: 0 };
  const { upstream, asked, limits } = planningStar(2, 5, 60_000, clock);
  const got = await collect(request(upstream, clock), "0");
  assert.deepEqual(got, [
    { first: "0", end: "10" },
    { first: "10", end: "20" },
    { first: "20", end: "30" },
    { first: "30", end: "40" },
    { first: "40", end: "50" },
  ]);
  assert.deepEqual(asked, ["0", "20", "40"]);
  // The first plan asks for what is fetched at once; each re-plan for twice as many, capped.
  assert.deepEqual(limits, [1, 2, 4]);
});

test("a read bounded to a number of records plans no further than they reach", async () => {
  const clock = { now: 0 };
  const { upstream, asked } = planningStar(2, 9, 60_000, clock);
  const got = await collect({ ...request(upstream, clock), records: 25 }, "0");
  assert.deepEqual(
    got.map((g) => g.first),
    ["0", "10", "20", "30"],
  );
  assert.deepEqual(asked, ["0", "20"]);
});

test("a plan about to expire is replaced from the next entry", async () => {
  const clock = { now: 0 };
  const { upstream, asked } = planningStar(10, 4, 10_000, clock);
  // Each entry taken moves the clock 3 s on: the 10 s URLs are within 2 s of expiry at 9 s.
  const got = await collect(request(upstream, clock), "0", () => {
    clock.now += 3_000;
  });
  assert.deepEqual(
    got.map((g) => g.first),
    ["0", "10", "20", "30"],
  );
  assert.deepEqual(asked, ["0", "30"]);
});

test("a very short expiry still moves forward: a fresh plan's first entry is taken", async () => {
  const clock = { now: 0 };
  const { upstream, asked } = planningStar(10, 3, 1, clock);
  const got = await collect(request(upstream, clock), "0", () => {
    clock.now += 5;
  });
  assert.deepEqual(
    got.map((g) => g.first),
    ["0", "10", "20"],
  );
  assert.deepEqual(asked, ["0", "10", "20"]);
});

test("a plan out of seq_num order is refused", async () => {
  const upstream = {
    unary: (async (method: string) =>
      method === "CheckTail"
        ? { tail: null }
        : {
            entries: ["10", "0"].map((first) => ({
              location: "url",
              url: "http://s.test/x",
              footer_off: "1",
              footer_len: 53,
              payload_bytes: "1",
              first_seq_num: first,
              min_timestamp_ms: "0",
              max_timestamp_ms: "0",
            })),
            more: false,
            expires_at_unix_ms: "0",
          }) as Upstream["unary"],
  };
  await assert.rejects(fetchPlan(request(upstream, { now: 0 }), { seq_num: "0" }), {
    name: "BadPlanError",
  });
});
