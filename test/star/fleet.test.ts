// Three star processes with --fleet over one s3rver: leader-only verbs answer NotOwner naming
// the leader from every other member; descriptors written through one member are seen by all;
// reads, subscriptions and ReadPlan agree byte for byte on every member; a member killed with
// SIGKILL and restarted recovers the streams it leads while the others keep serving theirs.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { type ServiceError, status } from "@grpc/grpc-js";
import { findDetail } from "../../src/contract/proto/index.ts";
import type { DataPlaneServiceClient } from "../../src/gen/nova/v1/DataPlaneService.ts";
import type { ReadRequest } from "../../src/gen/nova/v1/ReadRequest.ts";
import type { Record__Output } from "../../src/gen/nova/v1/Record.ts";
import type { SubscribeResponse__Output } from "../../src/gen/nova/v1/SubscribeResponse.ts";
import { type RunningS3rver, startS3rver } from "../../src/platform/objstore/index.ts";
import { Fleet, type Member } from "../../src/star/fleet/members.ts";
import { fleetMembers, keyLedBy as ledBy, startMember as startStar } from "../harness/fleet.ts";
import { call, refusal, settleStar, subscribeUntil } from "../harness/grpc.ts";
import { nodeArgs } from "../harness/process.ts";
import { type StarProcess, s3Storage } from "../harness/star-process.ts";
import { waitFor } from "../harness/wait.ts";

const NAMES = ["s1", "s2", "s3"] as const;
type Name = (typeof NAMES)[number];
const TTL_MS = 300;

let dir: string;
let s3: RunningS3rver;
let members: Member[];
let fleet: Fleet;
const stars = new Map<Name, StarProcess>();

const startMember = (name: Name): Promise<StarProcess> =>
  startStar(s3Storage(s3.url), members, name, ["--descriptor-ttl-ms", String(TTL_MS)]);

before(async () => {
  dir = await mkdtemp(join(tmpdir(), "nova-fleet-"));
  s3 = await startS3rver({ port: 0, dataDir: dir, buckets: ["nova"] });
  members = await fleetMembers(NAMES);
  fleet = new Fleet("s1", members);
  const started = await Promise.all(NAMES.map(startMember));
  for (const [i, name] of NAMES.entries()) stars.set(name, started[i] as StarProcess);
});

after(async () => {
  for (const star of stars.values()) {
    star.client.close();
    await star.proc.kill("SIGTERM");
  }
  await s3?.close();
  await rm(dir, { recursive: true, force: true });
});

const client = (name: Name): DataPlaneServiceClient => (stars.get(name) as StarProcess).client;
const leaderOf = (bucket: string, key: string) => fleet.leaderOf(bucket, key).name as Name;
const others = (name: Name) => NAMES.filter((n) => n !== name);

/** A stream key in `bucket` that `leader` leads. */
const keyLedBy = (bucket: string, leader: Name, prefix?: string) =>
  ledBy(members, bucket, leader, prefix);

function assertNotOwner(err: ServiceError, leader: Name, what: string): void {
  assert.equal(err.code, status.FAILED_PRECONDITION, `${what}: ${err.details}`);
  const detail = findDetail(err.metadata, "NotOwner");
  const expected = members.find((m) => m.name === leader) as Member;
  assert.deepEqual(
    detail,
    { leader_id: leader, leader_address: expected.address },
    `${what}: NotOwner names the leader`,
  );
}

const records = (n: number, from: number, base: number) =>
  Array.from({ length: n }, (_, i) => ({
    body: Buffer.from(`record ${from + i} `.repeat(1 + ((from + i) % 7))),
    headers:
      (from + i) % 3 === 0
        ? [
            { name: Buffer.from("i"), value: Buffer.from(String(from + i)) },
            { name: Buffer.from("bin"), value: Buffer.from([0, 255, from % 256]) },
          ]
        : [],
    timestamp_ms: String(base + from + i),
  }));

/** Every record from `start` to the end, page by page, as plain comparable values. */
async function readAll(
  c: DataPlaneServiceClient,
  request: ReadRequest,
): Promise<{ records: Record__Output[]; tail: string }> {
  const out: Record__Output[] = [];
  let req = { ...request };
  for (;;) {
    const page = await call(c, "Read", req);
    if (page.records.length === 0) return { records: out, tail: page.tail?.seq_num ?? "" };
    out.push(...page.records);
    const last = page.records[page.records.length - 1] as Record__Output;
    req = {
      bucket: request.bucket,
      key: request.key,
      count: request.count,
      bytes: request.bytes,
      seq_num: String(BigInt(last.seq_num) + 1n),
    };
  }
}

describe("ownership", () => {
  const bucket = "owners";

  before(async () => {
    await call(client("s1"), "CreateBucket", { name: bucket });
    for (const leader of NAMES) {
      const key = keyLedBy(bucket, leader);
      // Created through a member that does not lead it: passed on to the leader.
      await call(client(others(leader)[0] as Name), "CreateStream", { bucket, key });
      await call(client(leader), "Append", { bucket, key, records: records(3, 0, 1000) });
    }
  });

  test("rendezvous spreads the test's streams over every member", () => {
    for (const leader of NAMES) assert.equal(leaderOf(bucket, keyLedBy(bucket, leader)), leader);
  });

  for (const leader of NAMES) {
    test(`every leader-only verb for a stream ${leader} leads answers NotOwner elsewhere`, async () => {
      const key = keyLedBy(bucket, leader);
      const s = { bucket, key };
      for (const other of others(leader)) {
        const c = client(other);
        const verbs: [string, Promise<unknown>][] = [
          ["Append", call(c, "Append", { ...s, records: [{ body: Buffer.from("x") }] })],
          ["CheckTail", call(c, "CheckTail", s)],
          ["Trim", call(c, "Trim", { ...s, seq_num: "1" })],
          ["Fence", call(c, "Fence", { ...s, fencing_token: "t" })],
          ["DeleteStream", call(c, "DeleteStream", s)],
          [
            "ReconfigureStream",
            call(c, "ReconfigureStream", { ...s, config: { retention_max_age_ms: "0" } }),
          ],
        ];
        for (const [verb, p] of verbs)
          assertNotOwner(await refusal(p), leader, `${verb} on ${other}`);

        const session = c.AppendSession();
        const ended = new Promise<ServiceError>((resolve) => {
          session.on("error", resolve);
          session.on("data", () => undefined);
        });
        session.write({ open: s });
        assertNotOwner(await ended, leader, `AppendSession handshake on ${other}`);
      }
      // The leader itself serves them, and nothing above took effect.
      const tail = await call(client(leader), "CheckTail", s);
      assert.equal(tail.tail?.seq_num, "3");
      const got = await call(client(leader), "GetStream", s);
      assert.equal(got.fencing_token, "");
    });
  }

  test("NotOwner comes before NOT_FOUND: a missing stream's leader answers for it", async () => {
    const key = keyLedBy(bucket, "s2", "missing");
    assertNotOwner(
      await refusal(call(client("s1"), "CheckTail", { bucket, key })),
      "s2",
      "CheckTail",
    );
    const err = await refusal(call(client("s2"), "CheckTail", { bucket, key }));
    assert.equal(err.code, status.NOT_FOUND);
  });
});

describe("descriptors across members", () => {
  test("a bucket created through one member is seen by a member that looked before", async () => {
    const bucket = "seen-later";
    const err = await refusal(call(client("s3"), "GetBucket", { name: bucket }));
    assert.equal(err.code, status.NOT_FOUND);
    await call(client("s1"), "CreateBucket", { name: bucket });
    // The same creation token through another member converges on the same bucket.
    const a = await call(client("s2"), "CreateBucket", { name: "tok-bucket", creation_token: "x" });
    const b = await call(client("s3"), "CreateBucket", { name: "tok-bucket", creation_token: "x" });
    assert.equal(a.bucket?.created_at_unix_ms, b.bucket?.created_at_unix_ms);
    await waitFor(async () => (await call(client("s3"), "GetBucket", { name: bucket })).bucket, {
      message: "s3 sees the new bucket",
    });
  });

  test("creates converge through any member; reconfigure and delete reach every member", async () => {
    const bucket = "lifecycle";
    await call(client("s2"), "CreateBucket", { name: bucket });
    const leader = "s3";
    const key = keyLedBy(bucket, leader);
    const s = { bucket, key };
    const [c1, c2] = others(leader).map(client) as [DataPlaneServiceClient, DataPlaneServiceClient];
    // Another member reads the stream as missing before it exists (and may cache that).
    assert.equal((await refusal(call(c2, "GetStream", s))).code, status.NOT_FOUND);
    const created = await call(c1, "CreateStream", { ...s, creation_token: "t" });
    const again = await call(c2, "CreateStream", { ...s, creation_token: "t" });
    assert.equal(again.stream?.stream_id, created.stream?.stream_id);
    const dup = await refusal(call(c2, "CreateStream", s));
    assert.equal(dup.code, status.ALREADY_EXISTS);
    for (const name of NAMES) {
      await waitFor(
        async () =>
          (await call(client(name), "GetStream", s)).stream?.stream_id ===
          created.stream?.stream_id,
        { message: `${name} sees the stream` },
      );
    }

    // The leader follows a reconfigure at once: a client stamp is refused under arrival.
    await call(client(leader), "ReconfigureStream", {
      ...s,
      config: { timestamping_mode: "TIMESTAMPING_MODE_ARRIVAL" },
    });
    const stamped = await refusal(
      call(client(leader), "Append", {
        ...s,
        records: [{ body: Buffer.from("x"), timestamp_ms: "5" }],
      }),
    );
    assert.equal(stamped.code, status.INVALID_ARGUMENT);
    for (const name of others(leader)) {
      await waitFor(
        async () =>
          (await call(client(name), "GetStream", s)).stream?.timestamping_mode ===
          "TIMESTAMPING_MODE_ARRIVAL",
        { message: `${name} sees the reconfiguration` },
      );
    }

    await call(client(leader), "Append", { ...s, records: [{ body: Buffer.from("x") }] });
    await call(client(leader), "DeleteStream", s);
    for (const name of NAMES) {
      await waitFor(
        async () =>
          (await refusal(call(client(name), "Read", { ...s, seq_num: "0" }))).code ===
          status.NOT_FOUND,
        { message: `${name} sees the stream deleted` },
      );
    }
  });

  test("a read on a member that does not lead creates the stream through its leader", async () => {
    const bucket = "lazy-reads";
    await call(client("s1"), "CreateBucket", {
      name: bucket,
      config: { create_stream_on_read: true },
    });
    const key = keyLedBy(bucket, "s3");
    await waitFor(async () => (await call(client("s2"), "GetBucket", { name: bucket })).bucket);
    const page = await call(client("s2"), "Read", { bucket, key, seq_num: "0" });
    assert.deepEqual(page.records, []);
    const made = await call(client("s3"), "GetStream", { bucket, key });
    assert.equal(made.stream?.key, key);
    await call(client("s3"), "Append", { bucket, key, records: [{ body: Buffer.from("x") }] });
    const again = await call(client("s1"), "Read", { bucket, key, seq_num: "0" });
    assert.deepEqual(
      again.records.map((r) => r.body.toString()),
      ["x"],
    );
  });

  test("a bucket deleted through any member has its streams deleted by their leaders", async () => {
    const bucket = "doomed";
    await call(client("s1"), "CreateBucket", { name: bucket });
    const keys = NAMES.map((n) => keyLedBy(bucket, n));
    for (const key of keys) await call(client("s1"), "CreateStream", { bucket, key });
    await call(client("s2"), "DeleteBucket", { name: bucket });
    // Recreated under the same name, the bucket holds none of the old streams.
    await waitFor(async () => (await call(client("s3"), "CreateBucket", { name: bucket })).bucket, {
      message: "the bucket name is free again",
    });
    for (const name of NAMES) {
      for (const key of keys) {
        await waitFor(
          async () =>
            (await refusal(call(client(name), "GetStream", { bucket, key }))).code ===
            status.NOT_FOUND,
          { message: `${name} sees ${key} gone` },
        );
      }
    }
  });
});

describe("reads on every member", () => {
  const bucket = "reads";
  const N = 600;
  const base = Date.now() - 1_000_000;
  const keys = new Map<Name, string>();

  before(async () => {
    await call(client("s1"), "CreateBucket", { name: bucket });
    for (const leader of NAMES) {
      const key = keyLedBy(bucket, leader);
      keys.set(leader, key);
      await call(client(leader), "CreateStream", { bucket, key });
      for (let i = 0; i < N; i += 50) {
        await call(client(leader), "Append", { bucket, key, records: records(50, i, base) });
        // The first half settled one append per chunk, the rest unsettled in the leader's log:
        // every read below crosses the boundary.
        if (i < N / 2) await settleStar((stars.get(leader) as StarProcess).address);
      }
    }
  });

  for (const leader of NAMES) {
    test(`Read from every member agrees byte for byte (stream led by ${leader})`, async () => {
      const key = keys.get(leader) as string;
      const s = { bucket, key };
      const requests: [string, ReadRequest][] = [
        ["from 0", { ...s, seq_num: "0", count: 70 }],
        ["from the middle", { ...s, seq_num: "333", count: 45 }],
        ["by timestamp", { ...s, timestamp_ms: String(base + 250) }],
        ["small byte pages", { ...s, seq_num: "100", bytes: "700" }],
      ];
      for (const [what, request] of requests) {
        const results = await Promise.all(NAMES.map((n) => readAll(client(n), request)));
        const first = results[0] as { records: Record__Output[]; tail: string };
        assert.equal(first.tail, String(N), what);
        for (const r of results) assert.deepEqual(r, first, `${what}: every member agrees`);
      }
      const all = await readAll(client(leader), { ...s, seq_num: "0" });
      assert.equal(all.records.length, N);
      assert.deepEqual(
        all.records.map((r) => r.body),
        records(N, 0, base).map((r) => r.body),
      );

      // Single pages, including those only the leader can place (tail_offset, until_ms).
      const pages: ReadRequest[] = [
        { ...s, tail_offset: "5" },
        { ...s, seq_num: "590", until_ms: String(base + 595) },
        { ...s, seq_num: String(N), clamp: true },
        { ...s, seq_num: "10", count: 1, bytes: "1" },
      ];
      for (const page of pages) {
        const got = await Promise.all(NAMES.map((n) => call(client(n), "Read", page)));
        for (const g of got) assert.deepEqual(g, got[0], JSON.stringify(page));
      }
      for (const n of NAMES) {
        const err = await refusal(call(client(n), "Read", { ...s, seq_num: String(N + 1) }));
        assert.equal(err.code, status.OUT_OF_RANGE, n);
      }
    });
  }

  test("ReadPlan from every member names the same chunks", async () => {
    for (const leader of NAMES) {
      const s = { bucket, key: keys.get(leader) as string };
      for (const start of [
        { seq_num: "0" },
        { seq_num: "101" },
        { timestamp_ms: String(base + 144) },
      ]) {
        const plans = await Promise.all(
          NAMES.map((n) => call(client(n), "ReadPlan", { ...s, ...start })),
        );
        // Presigned URLs differ in their signatures, never in the object they name.
        const normal = plans.map((p) => ({
          ...p,
          expires_at_unix_ms: "",
          entries: p.entries.map((e) => ({ ...e, url: new URL(e.url ?? "").pathname })),
        }));
        assert.ok((normal[0]?.entries.length ?? 0) > 1);
        for (const p of normal) assert.deepEqual(p, normal[0], JSON.stringify(start));
        // Only settled records are vended: the plan ends where the settled half ends.
        assert.equal(normal[0]?.vended_until, String(N / 2));
      }
      // From the unsettled half, no member vends anything: the rest is read through Read.
      for (const n of NAMES) {
        const plan = await call(client(n), "ReadPlan", { ...s, seq_num: String(N / 2 + 1) });
        assert.deepEqual(plan.entries, [], n);
        assert.equal(plan.vended_until, undefined, n);
      }
    }
  });

  test("Subscribe on every member delivers the same records, history then live", async () => {
    for (const leader of NAMES) {
      const s = { bucket, key: keys.get(leader) as string };
      const expected = (await readAll(client(leader), { ...s, seq_num: "0" })).records;
      const got = await Promise.all(
        NAMES.map((n) => subscribeUntil(client(n), { ...s, seq_num: "100" }, N - 100)),
      );
      for (const g of got) assert.deepEqual(g, expected.slice(100));
    }
    // Live: subscribed on a member that does not lead, records appended after arrive.
    const leader = "s1";
    const s = { bucket, key: keys.get(leader) as string };
    const sub = client("s2").Subscribe({ ...s, seq_num: String(N) });
    const seen: Record__Output[] = [];
    let messages = 0;
    sub.on("data", (m: SubscribeResponse__Output) => {
      messages++;
      seen.push(...m.records);
    });
    sub.on("error", () => undefined);
    try {
      // The first message is the caught-up heartbeat: the subscription is live from here.
      await waitFor(() => messages > 0, { message: "the subscription is caught up" });
      await call(client(leader), "Append", { ...s, records: records(5, N, base) });
      await call(client(leader), "Append", { ...s, records: records(5, N + 5, base) });
      await waitFor(() => seen.length >= 10, { message: "live records through s2" });
    } finally {
      sub.cancel();
    }
    assert.deepEqual(
      seen.map((r) => [r.seq_num, r.body.toString()]),
      records(10, N, base).map((r, i) => [String(N + i), r.body.toString()]),
    );
  });
});

/** Every acked record in order, then at most the one batch in flight at the kill, whole. */
function assertAckedThenOneBatch(bodies: string[], acked: string[]): void {
  assert.deepEqual(bodies.slice(0, acked.length), acked);
  const extra = bodies.slice(acked.length);
  const n = acked.length / 2;
  assert.ok(
    extra.length === 0 ||
      (extra.length === 2 && extra[0] === `s1-${n}-a` && extra[1] === `s1-${n}-b`),
    `unacked records are one whole batch: ${JSON.stringify(extra)}`,
  );
}

describe("a member killed and restarted", () => {
  test("recovers its streams while the others keep serving theirs", async () => {
    const bucket = "crash";
    await call(client("s2"), "CreateBucket", { name: bucket });
    const keys = new Map(NAMES.map((n) => [n, keyLedBy(bucket, n)] as const));
    for (const [leader, key] of keys) await call(client(leader), "CreateStream", { bucket, key });

    const acked = new Map<Name, string[]>(NAMES.map((n) => [n, []]));
    const failures = new Map<Name, unknown[]>(NAMES.map((n) => [n, []]));
    let stop = false;
    const produce = async (leader: Name) => {
      const key = keys.get(leader) as string;
      for (let n = 0; !stop; n++) {
        const bodies = [`${leader}-${n}-a`, `${leader}-${n}-b`];
        try {
          await call(client(leader), "Append", {
            bucket,
            key,
            records: bodies.map((b) => ({ body: Buffer.from(b) })),
          });
          acked.get(leader)?.push(...bodies);
        } catch (err) {
          failures.get(leader)?.push(err);
          // The killed member's producer stops; the others must never fail.
          return;
        }
      }
    };
    const producers = NAMES.map(produce);
    const count = (n: Name) => acked.get(n)?.length ?? 0;
    await waitFor(() => NAMES.every((n) => count(n) >= 20), { message: "appends on all three" });

    const victim = stars.get("s1") as StarProcess;
    await victim.proc.kill("SIGKILL");
    victim.client.close();
    const ackedByVictim = [...(acked.get("s1") as string[])];
    const before2 = count("s2");
    const before3 = count("s3");
    await waitFor(() => count("s2") >= before2 + 40 && count("s3") >= before3 + 40, {
      timeoutMs: 30_000,
      message: "the others append while s1 is down",
    });
    // Reads of the victim's stream still work on the others, from storage.
    const s1Key = keys.get("s1") as string;
    const during = await readAll(client("s2"), { bucket, key: s1Key, seq_num: "0" });
    assertAckedThenOneBatch(
      during.records.map((r) => r.body.toString()),
      ackedByVictim,
    );

    stars.set("s1", await startMember("s1"));
    await waitFor(() => count("s2") >= before2 + 80 && count("s3") >= before3 + 80, {
      timeoutMs: 30_000,
      message: "the others still append after s1 is back",
    });
    stop = true;
    await Promise.all(producers);
    assert.deepEqual(failures.get("s2"), []);
    assert.deepEqual(failures.get("s3"), []);

    for (const [leader, key] of keys) {
      const expected = acked.get(leader) as string[];
      const reads = await Promise.all(
        NAMES.map((reader) => readAll(client(reader), { bucket, key, seq_num: "0" })),
      );
      for (const got of reads) {
        assert.deepEqual(got, reads[0], "every member reads the same");
        const bodies = got.records.map((r) => r.body.toString());
        if (leader === "s1") assertAckedThenOneBatch(bodies, expected);
        else assert.deepEqual(bodies, expected, `every acked record of ${leader}'s stream`);
        assert.equal(got.tail, String(bodies.length));
      }
    }
    // The restarted member leads again: its stream takes appends at its recovered tail.
    const tail = await call(client("s1"), "CheckTail", { bucket, key: s1Key });
    const after = await call(client("s1"), "Append", {
      bucket,
      key: s1Key,
      records: [{ body: Buffer.from("after") }],
    });
    assert.equal(after.start?.seq_num, tail.tail?.seq_num);
  });
});

describe("the command line", () => {
  /** Runs the star with `args`; resolves with its exit code and stderr. */
  function refused(args: string[]): Promise<{ code: number | null; stderr: string }> {
    const [command, argv] = nodeArgs("src/star/main.ts", ["--data-dir", dir, ...args]);
    return new Promise((resolve, reject) => {
      const child = spawn(command, argv, { stdio: ["ignore", "ignore", "pipe"] });
      let stderr = "";
      child.stderr.on("data", (d: Buffer) => {
        stderr += d.toString();
      });
      const timer = setTimeout(() => child.kill("SIGKILL"), 60_000);
      child.on("error", reject);
      child.on("exit", (code) => {
        clearTimeout(timer);
        resolve({ code, stderr });
      });
    });
  }

  test("a bad fleet or ReadPlan flag stops the star at start with exit 2 and a message", async () => {
    const cases: [string[], RegExp][] = [
      [["--self", "s9", "--fleet", "s1=127.0.0.1:1,s2=127.0.0.1:2"], /--self s9\) is not in/],
      [["--self", "s1", "--fleet", "s1=127.0.0.1:1,s1=127.0.0.1:2"], /s1 is listed twice/],
      [["--self", "s1", "--fleet", "s1=127.0.0.1:1,s2=127.0.0.1:1"], /listed twice/],
      [["--self", "s1", "--fleet", "s1=nowhere"], /not HOST:PORT/],
      [["--self", "s1", "--fleet", "s1"], /expected NAME=HOST:PORT/],
      [["--readplan-urls", "ftp"], /--readplan-urls must be presigned or object/],
      [["--readplan-ttl-seconds", "0"], /--readplan-ttl-seconds/],
    ];
    const results = await Promise.all(cases.map(([args]) => refused(args)));
    results.forEach((r, i) => {
      const [args, message] = cases[i] as [string[], RegExp];
      assert.equal(r.code, 2, args.join(" "));
      assert.match(r.stderr, message, args.join(" "));
    });
  });
});
