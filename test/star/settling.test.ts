// The star-wide log and settling over real sockets (star processes on one s3rver): a star killed
// with SIGKILL while appends go into log objects, and while settling runs, serves every acked
// record exactly once after a restart, through Read, Subscribe and a gateway reading history
// from object storage, with seq_nums going on where they stopped; ReadPlan never names an
// unsettled record, and after SettleStar it covers everything acked; trim and retention work
// across the settled/unsettled boundary.
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import type { DataPlaneServiceClient } from "../../src/gen/nova/v1/DataPlaneService.ts";
import type { Record__Output } from "../../src/gen/nova/v1/Record.ts";
import { RECORD_OBJECT_BYTES } from "../../src/platform/memory/index.ts";
import {
  createS3Store,
  type RunningS3rver,
  startS3rver,
} from "../../src/platform/objstore/index.ts";
import { inProcessGateway } from "../harness/gateway.ts";
import { call, settleStar, starStats, subscribeUntil } from "../harness/grpc.ts";
import { http } from "../harness/http.ts";
import { count } from "../harness/metrics.ts";
import { type StarProcess, s3Storage, startStarProcess } from "../harness/star-process.ts";
import { waitFor } from "../harness/wait.ts";

/** Nothing settles on its own: every acked record stays in log objects until SettleStar. */
const NEVER_SETTLE = ["--settle-chunk-kb", "1048576", "--settle-max-age-ms", "3600000"];
/** Settling all the time: a chunk per commit or so, as soon as the settler looks. */
const ALWAYS_SETTLE = [
  "--settle-chunk-kb",
  "1",
  "--settle-max-age-ms",
  "0",
  "--settle-interval-ms",
  "10",
];

let dir: string;
let s3: RunningS3rver;
const running = new Set<StarProcess>();

before(async () => {
  dir = await mkdtemp(join(tmpdir(), "nova-settling-"));
  // "idle": a store of its own for the idle-close tests, which count every stream a star holds
  // (a star's start sweeps the catalog it finds, the other tests' streams included).
  s3 = await startS3rver({ port: 0, dataDir: dir, buckets: ["nova", "idle", "restart"] });
});

after(async () => {
  for (const star of running) {
    star.client.close();
    await star.proc.kill("SIGKILL");
  }
  await s3?.close();
  await rm(dir, { recursive: true, force: true });
});

async function startStar(args: string[], bucket = "nova"): Promise<StarProcess> {
  const star = await startStarProcess(s3Storage(s3.url, bucket), { args });
  running.add(star);
  return star;
}

async function kill(star: StarProcess): Promise<void> {
  await star.proc.kill("SIGKILL");
  star.client.close();
  running.delete(star);
}

async function stop(star: StarProcess): Promise<void> {
  star.client.close();
  await star.proc.kill("SIGTERM");
  running.delete(star);
}

async function readAll(c: DataPlaneServiceClient, bucket: string, key: string) {
  const out: Record__Output[] = [];
  for (;;) {
    const seq_num = String(out.length === 0 ? 0 : BigInt(out.at(-1)?.seq_num as string) + 1n);
    const page = await call(c, "Read", { bucket, key, seq_num });
    if (page.records.length === 0) return { records: out, tail: page.tail?.seq_num };
    out.push(...page.records);
  }
}

const bodies = (records: { body: Uint8Array }[]) =>
  records.map((r) => Buffer.from(r.body).toString());

/** Every acked record in order, then at most the one batch in flight at the kill, whole. */
function assertAckedThenOneBatch(got: string[], acked: string[], key: string): void {
  assert.deepEqual(got.slice(0, acked.length), acked, `${key}: every acked record, in order`);
  const extra = got.slice(acked.length);
  const n = acked.length / 2;
  assert.ok(
    extra.length === 0 || (extra.length === 2 && extra[0] === `${key}-${n}-a`),
    `${key}: what follows the acked records is one whole batch: ${JSON.stringify(extra)}`,
  );
}

/** One producer per stream, a batch of two records at a time, until `stop` or a failure. */
function produce(c: DataPlaneServiceClient, bucket: string, keys: string[]) {
  const acked = new Map(keys.map((k) => [k, [] as string[]]));
  const state = { stop: false };
  const done = Promise.all(
    keys.map(async (key) => {
      for (let n = 0; !state.stop; n++) {
        const batch = [`${key}-${n}-a`, `${key}-${n}-b`];
        try {
          await call(c, "Append", {
            bucket,
            key,
            records: batch.map((b) => ({ body: Buffer.from(b) })),
          });
        } catch {
          return;
        }
        acked.get(key)?.push(...batch);
      }
    }),
  );
  const least = () => Math.min(...keys.map((k) => acked.get(k)?.length ?? 0));
  return { acked, state, done, least };
}

/**
 * After a restart: Read, Subscribe and a gateway's object-storage path each give every acked
 * record of every stream exactly once; a new append goes on at the tail, unsettled, and the
 * gateway reads across the boundary.
 */
async function assertRecovered(
  star: StarProcess,
  bucket: string,
  acked: Map<string, string[]>,
): Promise<void> {
  const gateway = await inProcessGateway([star.address], { readplan: {} });
  try {
    const fromStore = await count(gateway.metrics.readplan.records, { source: "objstore" });
    for (const [key, want] of acked) {
      const read = await readAll(star.client, bucket, key);
      const got = bodies(read.records);
      assertAckedThenOneBatch(got, want, key);
      assert.deepEqual(
        read.records.map((r) => r.seq_num),
        got.map((_, i) => String(i)),
        `${key}: seq_nums from 0 without a gap or a repeat`,
      );
      assert.equal(read.tail, String(got.length));

      const ack = await call(star.client, "Append", {
        bucket,
        key,
        records: [{ body: Buffer.from(`${key}-after`) }],
      });
      assert.equal(ack.start?.seq_num, String(got.length), `${key}: seq_nums go on at the tail`);
      const all = [...got, `${key}-after`];

      assert.deepEqual(
        bodies(await subscribeUntil(star.client, { bucket, key, seq_num: "0" }, all.length)),
        all,
      );

      const viaGateway: string[] = [];
      for (;;) {
        const page = await http(
          gateway.base,
          "GET",
          `/v1/buckets/${bucket}/streams/${key}/records?seq_num=${viaGateway.length}&count=1000`,
        );
        assert.equal(page.status, 200, page.text);
        const records = page.json.records as { seq_num: number; body: string }[];
        if (records.length === 0) break;
        assert.equal(records[0]?.seq_num, viaGateway.length);
        viaGateway.push(...records.map((r) => r.body));
      }
      assert.deepEqual(viaGateway, all, `${key}: the gateway reads each record once`);
    }
    // The replayed records came from chunk objects, not through the star.
    assert.ok(
      (await count(gateway.metrics.readplan.records, { source: "objstore" })) > fromStore,
      "the gateway read settled history from object storage",
    );
  } finally {
    await gateway.close();
  }
}

describe("a star killed with SIGKILL and restarted", () => {
  test("while appends go into log objects, nothing settled: every acked record once, seq_nums go on", async () => {
    const bucket = "killed-in-log";
    let star = await startStar(NEVER_SETTLE);
    await call(star.client, "CreateBucket", { name: bucket });
    const keys = ["a", "b", "c", "d"];
    for (const key of keys) await call(star.client, "CreateStream", { bucket, key });
    const p = produce(star.client, bucket, keys);
    await waitFor(() => p.least() >= 40, { timeoutMs: 30_000, message: "appends on every stream" });
    const stats = await starStats(star.address);
    await kill(star);
    p.state.stop = true;
    await p.done;
    // Everything acked was in log objects only: no chunk had been written.
    assert.equal(stats.chunks_settled, "0");
    assert.ok(Number(stats.log_objects_outstanding) > 0);

    star = await startStar(NEVER_SETTLE);
    await assertRecovered(star, bucket, p.acked);
    await stop(star);
  });

  test("while settling runs: every acked record once, seq_nums go on", async () => {
    const bucket = "killed-settling";
    let star = await startStar(ALWAYS_SETTLE);
    await call(star.client, "CreateBucket", { name: bucket });
    const keys = ["a", "b", "c", "d"];
    for (const key of keys) await call(star.client, "CreateStream", { bucket, key });
    const p = produce(star.client, bucket, keys);
    await waitFor(
      async () => p.least() >= 60 && Number((await starStats(star.address)).chunks_settled) >= 8,
      { timeoutMs: 30_000, message: "appends on every stream, and chunks settled" },
    );
    await kill(star);
    p.state.stop = true;
    await p.done;

    star = await startStar(NEVER_SETTLE);
    await assertRecovered(star, bucket, p.acked);
    await stop(star);
  });
});

describe("settled and unsettled", () => {
  let star: StarProcess;
  before(async () => {
    star = await startStar([...NEVER_SETTLE, "--retention-interval-ms", "50"]);
    await call(star.client, "CreateBucket", { name: "boundary" });
  });
  after(() => stop(star));

  const append = (key: string, texts: string[], stampMs?: number) =>
    call(star.client, "Append", {
      bucket: "boundary",
      key,
      records: texts.map((t) => ({
        body: Buffer.from(t),
        ...(stampMs === undefined ? {} : { timestamp_ms: String(stampMs) }),
      })),
    });
  const texts = (from: number, n: number) => Array.from({ length: n }, (_, i) => `r${from + i}`);

  test("ReadPlan never names an unsettled record; after SettleStar it covers everything acked", async () => {
    const s = { bucket: "boundary", key: "plan" };
    await call(star.client, "CreateStream", s);
    for (let i = 0; i < 30; i += 10) await append("plan", texts(i, 10));
    const first = await settleStar(star.address);
    const mine = first.streams.find((x) => x.key === "plan");
    assert.equal(mine?.settled_until, "30");
    assert.equal(mine?.records, "30");
    for (let i = 30; i < 50; i += 10) await append("plan", texts(i, 10));

    // Unsettled 30..49: a plan from anywhere ends at 30, and one from 30 on is empty.
    for (const from of ["0", "12", "29"]) {
      const plan = await call(star.client, "ReadPlan", { ...s, seq_num: from });
      assert.equal(plan.vended_until, "30", `from ${from}`);
      assert.ok(plan.entries.length > 0);
    }
    for (const from of ["30", "41", "50"]) {
      const plan = await call(star.client, "ReadPlan", { ...s, seq_num: from });
      assert.deepEqual(plan.entries, [], `from ${from}`);
      assert.equal(plan.vended_until, undefined);
    }
    const stats = await starStats(star.address);
    assert.equal(stats.unsettled_records, "20");
    assert.ok(Number(stats.log_objects_outstanding) >= 2);
    const part = (st: typeof stats, name: string) => {
      const p = st.memory.find((m) => m.name === name);
      assert.ok(p, `StarStats reports ${name}`);
      assert.ok(Number(p.held_bytes) <= Number(p.bound_bytes), `${name} within its bound`);
      return Number(p.held_bytes);
    };
    // The memory the records hold: their content and their objects.
    assert.equal(
      part(stats, "unsettled"),
      Number(stats.unsettled_bytes) + RECORD_OBJECT_BYTES * Number(stats.unsettled_records),
    );
    const cachedBefore = part(stats, "chunk_cache");

    const second = await settleStar(star.address);
    assert.deepEqual(
      second.streams.map((x) => [x.key, x.settled_until, x.records]),
      [["plan", "50", "20"]],
    );
    // The newest log object stays, settled, as the log's high-water mark.
    assert.equal(second.log_objects_outstanding, "1");
    const plan = await call(star.client, "ReadPlan", { ...s, seq_num: "0" });
    assert.equal(plan.vended_until, "50");
    const after = await starStats(star.address);
    assert.equal(after.unsettled_records, "0");
    assert.equal(part(after, "unsettled"), 0);
    // Each settle keeps the chunk it wrote (30 records, then 20) while it is the stream's newest;
    // the older one, never read, leaves memory.
    assert.ok(cachedBefore > 0, "the settled chunk is kept for reads");
    const cachedAfter = part(after, "chunk_cache");
    assert.ok(cachedAfter > 0 && cachedAfter < cachedBefore, "only the newest chunk is kept");
    assert.equal(after.settle_lag_ms, "0");
    assert.equal(after.log_objects_outstanding, "1");
    // With nothing new acked, SettleStar settles nothing.
    assert.deepEqual((await settleStar(star.address)).streams, []);
  });

  test("trim inside the unsettled part, then settled: nothing below it is read or vended", async () => {
    const s = { bucket: "boundary", key: "trim-unsettled" };
    await call(star.client, "CreateStream", s);
    await append(s.key, texts(0, 10));
    await settleStar(star.address);
    await append(s.key, texts(10, 10));
    await call(star.client, "Trim", { ...s, seq_num: "15" });
    const read = await readAll(star.client, s.bucket, s.key);
    assert.deepEqual(bodies(read.records), texts(15, 5));
    assert.deepEqual((await call(star.client, "ReadPlan", { ...s, seq_num: "0" })).entries, []);
    await settleStar(star.address);
    assert.deepEqual(bodies((await readAll(star.client, s.bucket, s.key)).records), texts(15, 5));
    // The chunk settled from 10 holds trimmed records: never vended.
    assert.deepEqual((await call(star.client, "ReadPlan", { ...s, seq_num: "0" })).entries, []);
  });

  test("trim inside the settled part: reads run from the trim point into the unsettled records", async () => {
    const s = { bucket: "boundary", key: "trim-settled" };
    await call(star.client, "CreateStream", s);
    await append(s.key, texts(0, 5));
    await settleStar(star.address);
    await append(s.key, texts(5, 5));
    await settleStar(star.address);
    await append(s.key, texts(10, 5));
    await call(star.client, "Trim", { ...s, seq_num: "3" });
    assert.deepEqual(bodies((await readAll(star.client, s.bucket, s.key)).records), texts(3, 12));
    const plan = await call(star.client, "ReadPlan", { ...s, seq_num: "0" });
    assert.deepEqual(
      plan.entries.map((e) => e.first_seq_num),
      ["5"],
    );
    assert.equal(plan.vended_until, "10");
  });

  test("a Subscribe from below a trim that reached the tail waits at the tail; the star stays up", async () => {
    const s = { bucket: "boundary", key: "trimmed-sub" };
    await call(star.client, "CreateStream", s);
    await append(s.key, texts(0, 3));
    await call(star.client, "Trim", { ...s, seq_num: "3" });
    // Records 1 and 2 are gone: the subscriber starts at the trim point, which is the tail.
    const got = subscribeUntil(star.client, { ...s, seq_num: "1" }, 1);
    const appended = append(s.key, ["after"]);
    let deadline: NodeJS.Timeout | undefined;
    const [records] = await Promise.race([
      Promise.all([got, appended]),
      new Promise<never>((_, reject) => {
        deadline = setTimeout(() => reject(new Error("the star did not answer")), 15_000);
      }),
    ]).finally(() => clearTimeout(deadline));
    assert.deepEqual(bodies(records), ["after"]);
    assert.equal(records[0]?.seq_num, "3");
  });

  test("size retention across the boundary: whole chunks in the settled part, records past it", async () => {
    const s = { bucket: "boundary", key: "size" };
    // Records of 10 bytes and a limit of 75.
    await call(star.client, "CreateStream", { ...s, config: { retention_max_bytes: "75" } });
    const tenBytes = (from: number, n: number) =>
      Array.from({ length: n }, (_, i) => `size-${String(from + i).padStart(5, "0")}`);
    const kept = async () => bodies((await readAll(star.client, s.bucket, s.key)).records);
    await append(s.key, tenBytes(0, 6));
    await settleStar(star.address);
    await append(s.key, tenBytes(6, 6));
    // 60 unsettled bytes fit; the settled chunk before them would not, whole, so it goes.
    await waitFor(async () => (await kept()).length === 6, { message: "the chunk trimmed" });
    assert.deepEqual(await kept(), tenBytes(6, 6));
    // 90 unsettled bytes: trimmed record by record to the newest 7.
    await append(s.key, tenBytes(12, 3));
    await waitFor(async () => (await kept()).length === 7, { message: "records trimmed" });
    assert.deepEqual(await kept(), tenBytes(8, 7));
  });

  test("age retention across the boundary trims old unsettled records, keeps young ones", async () => {
    const s = { bucket: "boundary", key: "age" };
    await call(star.client, "CreateStream", { ...s, config: { retention_max_age_ms: "600000" } });
    const old = Date.now() - 3_600_000;
    await append(s.key, texts(0, 5), old);
    await settleStar(star.address);
    await append(s.key, texts(5, 5), old);
    await append(s.key, texts(10, 5));
    await waitFor(
      async () =>
        (await readAll(star.client, s.bucket, s.key)).records[0]?.seq_num === "10" || undefined,
      { message: "records older than the limit trimmed" },
    );
    assert.deepEqual(bodies((await readAll(star.client, s.bucket, s.key)).records), texts(10, 5));
  });
});

describe("unsettled memory (--settle-max-unsettled-mb)", () => {
  test("records without content count by the memory they hold: past the cap they settle", async () => {
    const star = await startStar([
      ...NEVER_SETTLE,
      "--settle-max-unsettled-mb",
      "1",
      "--settle-interval-ms",
      "20",
    ]);
    try {
      await call(star.client, "CreateBucket", { name: "empties" });
      await call(star.client, "CreateStream", { bucket: "empties", key: "s" });
      const records = Array.from({ length: 10_000 }, () => ({ body: Buffer.alloc(0) }));
      for (let i = 0; i < 3; i++) {
        await call(star.client, "Append", { bucket: "empties", key: "s", records });
      }
      // 30,000 records of no content: about 6 MB held, over the 1 MiB cap.
      const stats = await waitFor(
        async () => {
          const st = await starStats(star.address);
          return Number(st.chunks_settled) > 0 && st;
        },
        { timeoutMs: 30_000, message: "the records settled though they have no content" },
      );
      assert.equal(stats.unsettled_bytes, "0");
      const read = await call(star.client, "Read", {
        bucket: "empties",
        key: "s",
        seq_num: "29999",
      });
      assert.equal(read.records[0]?.seq_num, "29999", "every record kept");
    } finally {
      await stop(star);
    }
  });
});

describe("streams closed idle (--stream-idle-close-ms)", () => {
  let star: StarProcess;
  before(async () => {
    star = await startStar(
      [...ALWAYS_SETTLE, "--retention-interval-ms", "20", "--stream-idle-close-ms", "1"],
      "idle",
    );
    await call(star.client, "CreateBucket", { name: "idle" });
  });
  after(() => stop(star));

  const append = (key: string, texts: string[], stampMs?: number) =>
    call(star.client, "Append", {
      bucket: "idle",
      key,
      records: texts.map((t) => ({
        body: Buffer.from(t),
        ...(stampMs === undefined ? {} : { timestamp_ms: String(stampMs) }),
      })),
    });
  const stats = () => starStats(star.address);

  test("an idle stream's log closes and opens again on use with every record and its state", async () => {
    const s = { bucket: "idle", key: "reopen" };
    await call(star.client, "CreateStream", s);
    await append(s.key, ["a", "b"]);
    await call(star.client, "Fence", { ...s, fencing_token: "t1" });
    await waitFor(async () => (await stats()).open_streams === "0" || undefined, {
      message: "the idle log closed",
    });
    assert.ok(Number((await stats()).streams_closed_idle) >= 1);
    assert.deepEqual(bodies((await readAll(star.client, s.bucket, s.key)).records), ["a", "b"]);
    // The fencing token came back from the state object: an append with another is refused.
    await assert.rejects(
      call(star.client, "Append", {
        ...s,
        fencing_token: "t0",
        records: [{ body: Buffer.from("c") }],
      }),
      /fencing/i,
    );
    const ack = await call(star.client, "Append", {
      ...s,
      fencing_token: "t1",
      records: [{ body: Buffer.from("c") }],
    });
    assert.equal(ack.start?.seq_num, "2");
  });

  test("a subscriber keeps its stream's log open and gets what is appended later", async () => {
    const s = { bucket: "idle", key: "followed" };
    await call(star.client, "CreateStream", s);
    await append(s.key, ["a"]);
    const got = subscribeUntil(star.client, { ...s, seq_num: "0" }, 3);
    // Another stream used since closes idle; the subscriber's does not.
    const closedBefore = Number((await stats()).streams_closed_idle);
    await call(star.client, "CreateStream", { ...s, key: "other" });
    await append("other", ["x"]);
    await waitFor(
      async () => {
        const { streams_closed_idle, open_streams } = await stats();
        return (Number(streams_closed_idle) > closedBefore && open_streams === "1") || undefined;
      },
      { message: "the other stream closed idle, the followed one open" },
    );
    await append(s.key, ["b"]);
    await append(s.key, ["c"]);
    assert.deepEqual(bodies(await got), ["a", "b", "c"]);
  });

  test("age retention reaches a stream closed idle: it opens when its oldest chunk ages out", async () => {
    const s = { bucket: "idle", key: "aging" };
    await call(star.client, "CreateStream", { ...s, config: { retention_max_age_ms: "600000" } });
    // Out of the retention window 1.5 s from now.
    await append(s.key, ["old"], Date.now() - 600_000 + 1_500);
    await waitFor(async () => (await stats()).dormant_streams === "1" || undefined, {
      message: "closed idle, remembered for its retention",
    });
    // No read opens it meanwhile: the round does, when due, trims it and closes it again.
    await waitFor(
      async () => {
        const { dormant_streams, open_streams } = await stats();
        return (dormant_streams === "0" && open_streams === "0") || undefined;
      },
      { message: "opened for its retention, trimmed and closed again" },
    );
    const { records, tail } = await readAll(star.client, s.bucket, s.key);
    assert.deepEqual(records, []);
    assert.equal(tail, "1");
  });

  test("expiry reaches a stream closed idle: it is deleted when it expires, with no client", async () => {
    const store = createS3Store({ endpoint: s3.url, bucket: "idle" });
    try {
      const s = { bucket: "idle", key: "expiring" };
      const expiresAt = Date.now() + 3000;
      const made = await call(star.client, "CreateStream", {
        ...s,
        config: { expires_at_unix_ms: String(expiresAt) },
      });
      const chunks = `chunks/${made.stream?.stream_id}/`;
      await append(s.key, ["soon gone"]);
      await waitFor(async () => (await store.list(chunks)).objects.length > 0 || undefined, {
        message: "settled into a chunk",
      });
      // It closes idle long before it expires (every 1 ms here): only its remembered expiry
      // opens it again.
      await waitFor(async () => (await store.list(chunks)).objects.length === 0 || undefined, {
        message: "deleted once expired, its chunks with it",
      });
      assert.ok(Date.now() >= expiresAt);
    } finally {
      store.close();
    }
  });
});

describe("retention and expiry after a restart, for streams no client touches", () => {
  // A store of its own: a start sweeps every stream it finds there.
  const bucket = "kept";
  const RETENTION_MS = 600_000;
  /** A record that ages out of RETENTION_MS `inMs` from now. */
  const agingIn = (inMs: number) => Date.now() - RETENTION_MS + inMs;
  const aged = (stampMs: number) => () => Date.now() > stampMs + RETENTION_MS + 1 || undefined;

  async function stream(star: StarProcess, key: string, config: Record<string, string>) {
    const made = await call(star.client, "CreateStream", { bucket, key, config });
    return made.stream?.stream_id as string;
  }

  test("a record that aged out while the star was down is never served: the first read trims", async () => {
    // Rounds (and the start's sweep) far apart: only the open can trim.
    const args = [...ALWAYS_SETTLE, "--retention-interval-ms", "3600000"];
    let star = await startStar(args, "restart");
    try {
      await call(star.client, "CreateBucket", { name: bucket });
      await stream(star, "aged", { retention_max_age_ms: String(RETENTION_MS) });
      const stamp = agingIn(1500);
      await call(star.client, "Append", {
        bucket,
        key: "aged",
        records: [{ body: Buffer.from("old"), timestamp_ms: String(stamp) }],
      });
      await stop(star);
      await waitFor(aged(stamp), { message: "the record aged out" });
      star = await startStar(args, "restart");
      const { records, tail } = await readAll(star.client, bucket, "aged");
      assert.deepEqual(bodies(records), []);
      assert.equal(tail, "1");
    } finally {
      await stop(star);
    }
  });

  test("the start's sweep trims a stream nobody reads and deletes one that expired", async () => {
    const store = createS3Store({ endpoint: s3.url, bucket: "restart" });
    const args = [...ALWAYS_SETTLE, "--retention-interval-ms", "3600000"];
    let star = await startStar(args, "restart");
    try {
      const agedId = await stream(star, "swept", { retention_max_age_ms: String(RETENTION_MS) });
      const expiresAt = Date.now() + 1500;
      const expiringId = await stream(star, "expiring", {
        expires_at_unix_ms: String(expiresAt),
      });
      const stamp = agingIn(1500);
      for (const key of ["swept", "expiring"]) {
        await call(star.client, "Append", {
          bucket,
          key,
          records: [{ body: Buffer.from(key), timestamp_ms: String(stamp) }],
        });
      }
      await settleStar(star.address);
      await stop(star);
      await waitFor(aged(stamp), { message: "the record aged out" });
      await waitFor(() => Date.now() > expiresAt || undefined, { message: "the stream expired" });
      assert.ok((await store.list(`chunks/${expiringId}/`)).objects.length > 0);
      // Rounds every 50 ms now; no client asks for either stream.
      star = await startStar([...ALWAYS_SETTLE, "--retention-interval-ms", "50"], "restart");
      await waitFor(
        async () => (await store.list(`chunks/${expiringId}/`)).objects.length === 0 || undefined,
        { message: "the expired stream's chunks deleted" },
      );
      await waitFor(
        async () => {
          const state = await store.get(`state/${agedId}`);
          return (state && JSON.parse(state.toString()).trim_seq_num === "1") || undefined;
        },
        { message: "the aged stream trimmed" },
      );
    } finally {
      await stop(star);
      store.close();
    }
  });
});
