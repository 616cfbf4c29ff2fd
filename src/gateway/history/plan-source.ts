// Plans from the star and the chunk entries they vend, in seq_num order: each ReadPlan asked
// together with CheckTail (a plan never names the tail, and a batch carries one), a re-plan
// from vended_until while `more`, and a re-plan ahead of a presigned URL's expiry.

import type { Position__Output } from "../../gen/nova/v1/Position.ts";
import type { CallOptions, Upstream } from "../upstream/index.ts";
import { BadPlanError, type PlanEntry, planEntry } from "./plan-entry.ts";
import { type Timings, timed } from "./timings.ts";

export interface Plan {
  entries: PlanEntry[];
  vendedUntil: bigint | undefined;
  more: boolean;
  /** 0 when the entries do not expire (raw object locations). */
  expiresAtMs: number;
  obtainedAtMs: number;
  tail: Position__Output;
  /** The stream was closed at the plan (its tail is final). */
  closed: boolean;
}

export interface PlannedEntry {
  entry: PlanEntry;
  /** One past this chunk's last seq_num by the plan: the next entry's first, or vended_until. */
  end: bigint | undefined;
  /** The stream's tail when this entry was planned. */
  tail: Position__Output;
  /** The stream was closed then. */
  closed: boolean;
}

export type PlanStart = { seq_num: string } | { timestamp_ms: string };

/** A start ReadPlan takes: a seq_num or a timestamp (a start from the tail has no history). */
export function planStart(start: object): PlanStart | undefined {
  const s = start as { seq_num?: string; timestamp_ms?: string };
  if (s.seq_num !== undefined) return { seq_num: s.seq_num };
  if (s.timestamp_ms !== undefined) return { timestamp_ms: s.timestamp_ms };
  return undefined;
}

export interface PlanRequest {
  upstream: Pick<Upstream, "unary">;
  address: { bucket: string; key: string };
  /** Where the read starts (the first plan's start). */
  start: PlanStart;
  /**
   * Entries of the first plan: what the reader fetches at once. Each re-plan asks for twice
   * as many, up to maxLimit, so a short read does not have the star presign URLs it will not
   * use and a long one needs few plans.
   */
  limit: number;
  maxLimit: number;
  /**
   * A read bounded to this many records needs no entry past them: no re-plan once the entries
   * vended hold that many from `coverFrom` (the start; for a timestamp start, past the first
   * entry, which may hold records before it).
   */
  records?: number;
  clamp: boolean;
  call: CallOptions;
  timings: Timings;
  now: () => number;
}

export async function fetchPlan(
  req: PlanRequest,
  start: PlanStart,
  limit = req.limit,
): Promise<Plan> {
  const { upstream, address, call } = req;
  const route = { ...call, ...address };
  const [plan, tail] = await timed(req.timings, "planMs", () =>
    Promise.all([
      upstream.unary("ReadPlan", { ...address, ...start, limit, clamp: req.clamp }, route),
      upstream.unary("CheckTail", address, route),
    ]),
  );
  const entries = plan.entries.map(planEntry);
  for (let i = 1; i < entries.length; i++) {
    if ((entries[i] as PlanEntry).firstSeqNum <= (entries[i - 1] as PlanEntry).firstSeqNum) {
      throw new BadPlanError("entries are not in seq_num order");
    }
  }
  return {
    entries,
    vendedUntil: plan.vended_until === undefined ? undefined : BigInt(plan.vended_until),
    more: plan.more,
    expiresAtMs: Number(plan.expires_at_unix_ms),
    obtainedAtMs: req.now(),
    tail: tail.tail ?? { seq_num: "0", timestamp_ms: "0" },
    closed: tail.closed === true,
  };
}

/** Whether a plan's URLs are about to expire: within a quarter of their life, at most 2 s. */
function expiring(plan: Plan, now: number): boolean {
  if (plan.expiresAtMs <= 0) return false;
  const margin = Math.min(2_000, (plan.expiresAtMs - plan.obtainedAtMs) / 4);
  return now >= plan.expiresAtMs - margin;
}

/** Every entry from `first` on, re-planning as needed. A failing re-plan throws. */
export async function* plannedEntries(
  req: PlanRequest,
  first: Plan,
): AsyncGenerator<PlannedEntry, void, undefined> {
  let plan = first;
  let limit = req.limit;
  const head = first.entries[0];
  const coverFrom =
    head === undefined
      ? undefined
      : "seq_num" in req.start
        ? BigInt(req.start.seq_num)
        : (first.entries[1]?.firstSeqNum ?? first.vendedUntil);
  const covered = (until: bigint) =>
    req.records !== undefined &&
    coverFrom !== undefined &&
    until - coverFrom >= BigInt(req.records);
  const replan = (from: bigint) => {
    limit = Math.min(limit * 2, req.maxLimit);
    return fetchPlan(req, { seq_num: from.toString() }, limit);
  };
  for (;;) {
    let i = 0;
    while (i < plan.entries.length) {
      const entry = plan.entries[i] as PlanEntry;
      // A fresh plan's first entry is always taken, so a short expiry cannot loop.
      if (i > 0 && expiring(plan, req.now())) {
        plan = await replan(entry.firstSeqNum);
        i = 0;
        continue;
      }
      const end = plan.entries[i + 1]?.firstSeqNum ?? plan.vendedUntil;
      yield { entry, end, tail: plan.tail, closed: plan.closed };
      i++;
    }
    const last = plan.entries.at(-1);
    const next = plan.vendedUntil;
    // A plan that does not move forward ends the plan phase rather than asking again.
    if (!plan.more || last === undefined || next === undefined || next <= last.firstSeqNum) return;
    if (covered(next)) return;
    plan = await replan(next);
  }
}
