import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { status } from "@grpc/grpc-js";
import fc from "fast-check";
import { Registry } from "prom-client";
import type { ChunkRecord } from "../../contract/codec/index.ts";
import { PageRule } from "../../contract/page-rule.ts";
import type { Record__Output } from "../../gen/nova/v1/Record.ts";
import { MemoryParts } from "../../platform/memory/index.ts";
import type { ReadQuery } from "../translate/index.ts";
import { StarCallError } from "../upstream/index.ts";
import { createChunkLoader } from "./chunk-loader.ts";
import type { HistoryDeps } from "./history-reader.ts";
import { createReadPlanMetrics, type ReadPlanMetrics } from "./metrics.ts";
import { type ModelOptions, ModelStar } from "./model-star.test-helper.ts";
import type { PlanStart } from "./plan-source.ts";
import { readService } from "./read-service.ts";
import { s3Fetcher } from "./s3-fetcher.ts";
import type { UrlFetcher } from "./url-fetcher.ts";

const address = { bucket: "b", key: "k" };
const noUrls: UrlFetcher = {
  get: () => Promise.reject(new Error("no URLs in these tests")),
  close: async () => {},
};

interface SetupOptions {
  prefetch?: number;
  upstream?: ReturnType<ModelStar["upstream"]>;
  planLimit?: number;
  cacheBytes?: number;
  loadingBytes?: number;
}

function setup(star: ModelStar, opts: SetupOptions = {}) {
  const {
    prefetch = 2,
    upstream = star.upstream(),
    planLimit = 8,
    cacheBytes = 1 << 20,
    loadingBytes = 1 << 20,
  } = opts;
  const metrics = createReadPlanMetrics(new Registry(), new MemoryParts());
  const loader = createChunkLoader({
    url: noUrls,
    s3: s3Fetcher(
      () => star.store,
      () => {},
    ),
    cacheBytes,
    loadingBytes,
    metrics,
  });
  const deps: HistoryDeps = { upstream, loader, metrics, planLimit, prefetch };
  return { metrics, service: readService(upstream, metrics, deps, () => loader.close()) };
}

async function counter(
  metrics: ReadPlanMetrics,
  name: Exclude<keyof ReadPlanMetrics, "memory">,
  labels: object,
) {
  const got = await metrics[name].get();
  const match = got.values.find((v) =>
    Object.entries(labels).every(([k, want]) => (v.labels as Record<string, unknown>)[k] === want),
  );
  return match?.value ?? 0;
}

const plain = (records: Record__Output[]) =>
  records.map((r) => ({
    seq: r.seq_num,
    ts: r.timestamp_ms,
    body: Buffer.from(r.body).toString("hex"),
    headers: r.headers.map((h) => [
      Buffer.from(h.name).toString("hex"),
      Buffer.from(h.value).toString("hex"),
    ]),
  }));

const recordArb = fc.record({
  body: fc.uint8Array({ maxLength: 12 }),
  headers: fc.array(
    fc.record({
      name: fc.uint8Array({ minLength: 1, maxLength: 3 }),
      value: fc.uint8Array({ maxLength: 3 }),
    }),
    { maxLength: 2 },
  ),
  dt: fc.integer({ min: 0, max: 2 }),
});

/** Chunks of records with timestamps that never decrease. */
const chunksArb = fc
  .array(fc.array(recordArb, { minLength: 1, maxLength: 5 }), { minLength: 1, maxLength: 7 })
  .map((chunks) => {
    let ts = 100n;
    return chunks.map((records) =>
      records.map((r): ChunkRecord => {
        ts += BigInt(r.dt);
        return { body: r.body, headers: r.headers, timestampMs: ts };
      }),
    );
  });

type Fault = "none" | "corrupt" | "missing";

const scenarioArb = chunksArb.chain((chunks) => {
  const total = chunks.reduce((n, c) => n + c.length, 0);
  const lastTs = Number(chunks.at(-1)?.at(-1)?.timestampMs ?? 100n);
  return fc.record({
    chunks: fc.constant(chunks),
    trim: fc.integer({ min: 0, max: total }),
    unsettled: fc.integer({ min: 0, max: 2 }),
    planCap: fc.integer({ min: 1, max: 3 }),
    faults: fc.array(
      fc.record({
        kind: fc.constantFrom<Fault>("none", "none", "none", "corrupt", "missing"),
        offset: fc.nat(),
      }),
      { minLength: chunks.length, maxLength: chunks.length },
    ),
    start: fc.oneof(
      fc.integer({ min: 0, max: total }).map((n): PlanStart => ({ seq_num: String(n) })),
      fc.integer({ min: 99, max: lastTs + 2 }).map((n): PlanStart => ({ timestamp_ms: String(n) })),
    ),
    count: fc.option(fc.integer({ min: 1, max: 12 }), { nil: undefined }),
    bytes: fc.option(fc.integer({ min: 1, max: 60 }), { nil: undefined }),
    until: fc.option(fc.integer({ min: 100, max: lastTs + 2 }), { nil: undefined }),
    prefetch: fc.integer({ min: 0, max: 3 }),
    planLimit: fc.integer({ min: 1, max: 4 }),
    // A cache of about one chunk or two lets chunks go while they are read ahead, and their
    // memory holds other chunks by the time they are served.
    cacheBytes: fc.constantFrom(1 << 20, 1200, 2400),
    // A loading budget under a chunk or two refuses fetches (busy): the star serves those.
    loadingBytes: fc.constantFrom(1 << 20, 300, 1200),
  });
});

async function modelOf(s: {
  pageRecords?: number;
  refuseDamaged?: boolean;
  chunks: ChunkRecord[][];
  trim: number;
  unsettled: number;
  planCap: number;
  faults: { kind: Fault; offset: number }[];
}): Promise<ModelStar> {
  const opts: ModelOptions = {
    chunks: s.chunks,
    trim: BigInt(s.trim),
    unsettled: s.unsettled,
    planCap: s.planCap,
    ...(s.pageRecords === undefined ? {} : { pageRecords: s.pageRecords }),
    refuseDamaged: s.refuseDamaged ?? false,
  };
  const star = await ModelStar.create(opts);
  for (const [i, f] of s.faults.entries()) {
    if (f.kind === "corrupt") await star.corrupt(i, f.offset);
    if (f.kind === "missing") await star.remove(i);
  }
  return star;
}

describe("a page read through plans equals the star's Read", () => {
  test("for any stream, trim point, faults, start and bounds", async () => {
    await fc.assert(
      fc.asyncProperty(scenarioArb, fc.boolean(), async (s, refuseDamaged) => {
        // A star that refuses damaged chunks too: the page fails exactly when its Read does.
        const star = await modelOf({ ...s, refuseDamaged });
        const { service } = setup(star, s);
        const query: ReadQuery = { start: s.start, clamp: false, wait: 0, int64: "number" };
        if (s.count !== undefined) query.count = BigInt(s.count);
        if (s.bytes !== undefined) query.bytes = BigInt(s.bytes);
        if (s.until !== undefined) query.until_ms = String(s.until);
        const asked = {
          ...s.start,
          count: s.count ?? 0,
          bytes: String(s.bytes ?? 0),
          ...(s.until === undefined ? {} : { until_ms: String(s.until) }),
        };
        const want = (() => {
          try {
            return star.read(asked);
          } catch (err) {
            return err as StarCallError;
          }
        })();
        const got = await service.page(address, query, {}).catch((err: StarCallError) => err);
        if (want instanceof StarCallError || got instanceof StarCallError) {
          assert.ok(want instanceof StarCallError && got instanceof StarCallError, String(got));
          assert.equal(got.code, want.code);
        } else {
          assert.deepEqual(plain(got.response.records), plain(want.records));
          assert.deepEqual(got.response.tail, want.tail);
        }
        await service.close();
      }),
      { numRuns: 300 },
    );
  });
});

describe("a whole history read, then the star, is every record once", () => {
  test("for any stream, trim point, faults and start", async () => {
    await fc.assert(
      fc.asyncProperty(scenarioArb, fc.integer({ min: 1, max: 4 }), async (s, pageRecords) => {
        // Small Read pages: ranges read through the star take several calls.
        const star = await modelOf({ ...s, pageRecords });
        const { service } = setup(star, s);
        const history = service.history;
        assert.ok(history);
        const limits = new PageRule(Number.POSITIVE_INFINITY, Number.POSITIVE_INFINITY);
        const reader = history.read(address, s.start, limits, {});
        const got: Record__Output[] = [];
        let step = await reader.next();
        while (!step.done) {
          const { records, tail } = step.value;
          assert.ok(records.length > 0 && records.length <= 1000);
          assert.ok(BigInt(tail.seq_num) > BigInt(records.at(-1)?.seq_num ?? -1));
          got.push(...records);
          step = await reader.next();
        }
        assert.equal(step.value.planned, true);
        // The star takes over where the plan phase ended.
        let next: PlanStart = step.value.next;
        for (;;) {
          const page = star.read({ ...next });
          if (page.records.length === 0) break;
          got.push(...page.records);
          next = { seq_num: String(BigInt(page.records.at(-1)?.seq_num ?? 0) + 1n) };
        }
        const from =
          "seq_num" in s.start
            ? BigInt(s.start.seq_num)
            : BigInt(
                star.read({ timestamp_ms: s.start.timestamp_ms, count: 1 }).records[0]?.seq_num ??
                  star.tail.seq_num,
              );
        const want = star.all().filter((r) => BigInt(r.seq_num) >= from);
        assert.deepEqual(plain(got), plain(want));
        await service.close();
      }),
      { numRuns: 300 },
    );
  });
});

describe("faults and the star", () => {
  const records = (n: number, ts = 100n): ChunkRecord[] =>
    Array.from({ length: n }, (_, i) => ({
      body: Buffer.from(`r${i}`),
      headers: [],
      timestampMs: ts + BigInt(i),
    }));

  test("a page whose bytes end before a damaged chunk ends there, as one Read does, not failing", async () => {
    // Settled: the first chunk, 5 of the 6 bytes. The rest comes through Read, which takes its
    // first record (4 bytes, past the 1 left) whatever its size and looks at the next, in a
    // damaged chunk; one Read of the page stops at that record and never looks.
    const sized = (n: number, ts: bigint): ChunkRecord => ({
      body: Buffer.alloc(n, 1),
      headers: [],
      timestampMs: ts,
    });
    const star = await ModelStar.create({
      chunks: [[sized(3, 100n), sized(2, 101n)], [sized(4, 102n)], [sized(1, 103n)]],
      unsettled: 2,
      refuseDamaged: true,
    });
    await star.remove(2);
    const { service } = setup(star);
    const query: ReadQuery = {
      start: { seq_num: "0" },
      bytes: 6n,
      clamp: false,
      wait: 0,
      int64: "number",
    };
    const want = star.read({ seq_num: "0", bytes: "6" });
    const got = await service.page(address, query, {});
    assert.deepEqual(
      got.response.records.map((r) => r.seq_num),
      want.records.map((r) => r.seq_num),
    );
    assert.deepEqual(
      want.records.map((r) => r.seq_num),
      ["0", "1"],
    );
    // From the record that did not fit, the one Read meets the damage too.
    const next = { ...query, start: { seq_num: "2" } };
    await assert.rejects(service.page(address, next, {}), /corrupt chunk/);
    assert.throws(() => star.read({ seq_num: "2", bytes: "6" }), /corrupt chunk/);
    await service.close();
  });

  test("settled history from a seq_num costs no Read; a second reader no fetch", async () => {
    const star = await ModelStar.create({ chunks: [records(5), records(5), records(5)] });
    const { service, metrics } = setup(star);
    const query: ReadQuery = {
      start: { seq_num: "2" },
      count: 10n,
      clamp: false,
      wait: 0,
      int64: "number",
    };
    const first = await service.page(address, query, {});
    assert.deepEqual(
      first.response.records.map((r) => r.seq_num),
      ["2", "3", "4", "5", "6", "7", "8", "9", "10", "11"],
    );
    assert.deepEqual(first.response.tail, star.tail);
    assert.equal(star.calls.filter((m) => m === "Read").length, 0);
    assert.equal(await counter(metrics, "fetches", { outcome: "ok" }), 3);
    await service.page(address, query, {});
    assert.equal(await counter(metrics, "fetches", { outcome: "ok" }), 3);
    assert.equal(await counter(metrics, "cacheHits", { kind: "hit" }), 3);
    assert.equal(star.calls.filter((m) => m === "Read").length, 0);
  });

  test("a chunk let go before it is served is loaded again, never read from reused memory", async () => {
    // Equal-sized chunks, a cache of one, and three read ahead: each chunk has left the cache,
    // and its memory holds a later chunk, by the time the reader gets to it.
    const chunks = Array.from({ length: 6 }, (_, c) =>
      Array.from({ length: 4 }, (_, i) => ({
        body: Buffer.from(`chunk ${c} record ${i}`),
        headers: [],
        timestampMs: 100n + BigInt(4 * c + i),
      })),
    );
    const star = await ModelStar.create({ chunks });
    const { service, metrics } = setup(star, { prefetch: 3, cacheBytes: 1200 });
    const history = service.history;
    assert.ok(history);
    const reader = history.read(address, { seq_num: "0" }, new PageRule(100, 1 << 20), {});
    const got: Record__Output[] = [];
    for (let step = await reader.next(); !step.done; step = await reader.next()) {
      got.push(...step.value.records);
    }
    assert.deepEqual(plain(got), plain(star.all()));
    // More fetches than chunks: the ones let go were loaded again.
    assert.ok((await counter(metrics, "fetches", { outcome: "ok" })) > chunks.length);
    assert.equal(star.calls.filter((m) => m === "Read").length, 0);
    await service.close();
  });

  test("a corrupt chunk is read through the star and counted", async () => {
    const star = await ModelStar.create({ chunks: [records(3), records(3), records(3)] });
    await star.corrupt(1, 2);
    const { service, metrics } = setup(star);
    const got = await service.page(
      address,
      { start: { seq_num: "0" }, clamp: false, wait: 0, int64: "number" },
      {},
    );
    assert.deepEqual(plain(got.response.records), plain(star.all()));
    assert.equal(await counter(metrics, "fallbacks", { reason: "corrupt" }), 1);
    assert.equal(await counter(metrics, "records", { source: "star" }), 3);
    assert.equal(await counter(metrics, "records", { source: "objstore" }), 6);
    assert.ok(got.timings.starMs > 0);
  });

  test("a timestamp start whose chunk faults is placed by the star", async () => {
    const star = await ModelStar.create({ chunks: [records(3, 100n), records(3, 103n)] });
    await star.corrupt(1, 0);
    const { service, metrics } = setup(star);
    const got = await service.page(
      address,
      { start: { timestamp_ms: "104" }, clamp: false, wait: 0, int64: "number" },
      {},
    );
    assert.deepEqual(
      got.response.records.map((r) => [r.seq_num, r.timestamp_ms]),
      [
        ["4", "104"],
        ["5", "105"],
      ],
    );
    assert.equal(await counter(metrics, "fallbacks", { reason: "corrupt" }), 1);
  });

  test("a timestamp start placed from chunk timestamps costs no Read", async () => {
    const star = await ModelStar.create({ chunks: [records(3, 100n), records(3, 103n)] });
    const { service } = setup(star);
    const seqs = async (ts: string, count: bigint) => {
      const query: ReadQuery = {
        start: { timestamp_ms: ts },
        count,
        clamp: false,
        wait: 0,
        int64: "number",
      };
      return (await service.page(address, query, {})).response.records.map((r) => r.seq_num);
    };
    assert.deepEqual(await seqs("101", 4n), ["1", "2", "3", "4"]);
    // At a chunk boundary: the chunk before holds no trimmed record, so nothing hides there.
    assert.deepEqual(await seqs("103", 3n), ["3", "4", "5"]);
    assert.equal(star.calls.filter((m) => m === "Read").length, 0);
  });

  test("a timestamp start after a chunk holding trimmed records asks the star", async () => {
    const star = await ModelStar.create({
      chunks: [records(3, 100n), records(3, 103n)],
      trim: 1n,
    });
    const { service } = setup(star);
    const got = await service.page(
      address,
      { start: { timestamp_ms: "100" }, clamp: false, wait: 0, int64: "number" },
      {},
    );
    assert.deepEqual(
      got.response.records.map((r) => r.seq_num),
      ["1", "2", "3", "4", "5"],
    );
  });

  test("a missing chunk is read through the star and counted", async () => {
    const star = await ModelStar.create({ chunks: [records(3), records(3)] });
    await star.remove(0);
    const { service, metrics } = setup(star);
    const got = await service.page(
      address,
      { start: { seq_num: "1" }, clamp: false, wait: 0, int64: "number" },
      {},
    );
    assert.deepEqual(plain(got.response.records), plain(star.all().slice(1)));
    assert.equal(await counter(metrics, "fallbacks", { reason: "missing" }), 1);
  });

  test("a trim between the plan and its chunks: the page is the star's after it, none removed", async () => {
    for (const [cached, reclaimed, budget] of [
      [1, 0, undefined],
      [0, 1, undefined],
      // Bounded by bytes the cached chunk's records spend: the page is still the star's.
      [0, 1, 6n],
    ] as const) {
      const star = await ModelStar.create({ chunks: [records(3), records(3), records(3)] });
      const model = star.upstream();
      let armed = false;
      // Retention trims to 6 and reclaims a chunk right after the page's plan is answered.
      const upstream = {
        unary: (async (method: string, req: unknown, opts: unknown) => {
          const res = await (model.unary as (m: string, r: unknown, o: unknown) => unknown)(
            method,
            req,
            opts,
          );
          if (armed && method === "ReadPlan") {
            armed = false;
            star.trim = 6n;
            await star.remove(reclaimed);
          }
          return res;
        }) as typeof model.unary,
      };
      const { service } = setup(star, { upstream });
      // An earlier reader left one chunk in the gateway's cache (and not the one reclaimed).
      const key = star.chunks[reclaimed]?.key as string;
      const bytes = (await star.store.get(key)) as Buffer;
      await star.store.delete([key]);
      await service.page(
        address,
        {
          start: { seq_num: String(cached * 3) },
          count: 3n,
          clamp: false,
          wait: 0,
          int64: "number",
        },
        {},
      );
      await star.store.put(key, bytes);
      armed = true;
      const query: ReadQuery = {
        start: { seq_num: "0" },
        ...(budget === undefined ? {} : { bytes: budget }),
        clamp: false,
        wait: 0,
        int64: "number",
      };
      const got = await service.page(address, query, {});
      const direct = (await (model.unary as (m: string, r: unknown, o: unknown) => unknown)(
        "Read",
        { ...address, seq_num: "0", count: 1000, bytes: String(budget ?? 1n << 20n), clamp: false },
        {},
      )) as { records: Record__Output[] };
      const seqs = (rs: Record__Output[]) => rs.map((r) => r.seq_num);
      assert.deepEqual(
        seqs(direct.records).slice(0, 1),
        ["6"],
        "the star's page starts at the trim",
      );
      assert.deepEqual(
        seqs(got.response.records),
        seqs(direct.records),
        `cached chunk ${cached}, reclaimed ${reclaimed}, bytes ${budget}`,
      );
    }
  });

  test("a chunk larger than the chunk cache is fetched all the same, and not kept", async () => {
    const star = await ModelStar.create({ chunks: [records(3), records(3)] });
    const { service, metrics } = setup(star, { cacheBytes: 16 });
    const got = await service.page(
      address,
      { start: { seq_num: "0" }, clamp: false, wait: 0, int64: "number" },
      {},
    );
    assert.deepEqual(plain(got.response.records), plain(star.all()));
    assert.equal(await counter(metrics, "fallbacks", {}), 0);
  });

  test("a plan naming a chunk larger than any chunk can be is read through the star", async () => {
    const star = await ModelStar.create({ chunks: [records(3), records(3)] });
    const model = star.upstream();
    const upstream = {
      unary: (async (method: string, req: unknown, opts: unknown) => {
        const res = (await (model.unary as (m: string, r: unknown, o: unknown) => unknown)(
          method,
          req,
          opts,
        )) as { entries?: { footer_off: string; payload_bytes: string }[] };
        const entry = method === "ReadPlan" ? res.entries?.[0] : undefined;
        // 2^44 bytes more than the object: nothing may be set aside for it.
        if (entry)
          entry.footer_off = entry.payload_bytes = String(BigInt(entry.footer_off) + 2n ** 44n);
        return res;
      }) as typeof model.unary,
    };
    const { service, metrics } = setup(star, { upstream });
    const got = await service.page(
      address,
      { start: { seq_num: "0" }, clamp: false, wait: 0, int64: "number" },
      {},
    );
    assert.deepEqual(plain(got.response.records), plain(star.all()));
    assert.equal(await counter(metrics, "fallbacks", { reason: "corrupt" }), 1);
  });

  test("a star without ReadPlan: the read goes through Read, counted as plan_failed", async () => {
    const star = await ModelStar.create({ chunks: [records(3)] });
    const model = star.upstream();
    const upstream: typeof model = {
      unary: ((method, request, opts) =>
        method === "ReadPlan"
          ? Promise.reject(
              new StarCallError({ code: status.UNIMPLEMENTED, details: "no" }, { method }),
            )
          : model.unary(method, request, opts)) as typeof model.unary,
    };
    const { service, metrics } = setup(star, { upstream });
    const got = await service.page(
      address,
      { start: { seq_num: "0" }, clamp: false, wait: 0, int64: "number" },
      {},
    );
    assert.deepEqual(plain(got.response.records), plain(star.all()));
    assert.equal(await counter(metrics, "fallbacks", { reason: "plan_failed" }), 1);
    assert.equal(star.calls.filter((m) => m === "Read").length, 1);
  });

  test("a stream the star does not have: Read answers, not counted as a fallback", async () => {
    const star = await ModelStar.create({ chunks: [records(3)] });
    const { service, metrics } = setup(star);
    await assert.rejects(
      service.page(
        address,
        { start: { seq_num: "9" }, clamp: false, wait: 0, int64: "number" },
        {},
      ),
      (err: StarCallError) => err.code === status.OUT_OF_RANGE,
    );
    assert.equal(await counter(metrics, "fallbacks", { reason: "plan_failed" }), 0);
  });
});
