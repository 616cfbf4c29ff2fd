// S2's own TypeScript SDK (@s2-dev/streamstore) against the gateway's S2 face, over real
// sockets to a real star: basins, streams, unary appends and reads (JSON and protobuf), tail,
// condition misses as the SDK's own error classes, fence and trim as command records (seq_nums,
// conditions, with data), and read
// and append sessions on the SDK's fetch transport (SSE and unary appends).
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import {
  AppendInput,
  AppendRecord,
  FencingTokenMismatchError,
  S2,
  type S2Basin,
  type S2Error,
  type S2Stream,
  SeqNumMismatchError,
} from "@s2-dev/streamstore";
import type { Gateway } from "../harness/gateway.ts";
import { type Stack, startStack } from "../harness/stack.ts";

let stack: Stack<Gateway>;
let s2: S2;

before(async () => {
  stack = await startStack("nova-s2-sdk-");
  s2 = new S2({
    accessToken: "any-token",
    endpoints: { account: stack.gw.base, basin: stack.gw.base },
    retry: { maxAttempts: 1 },
  });
});
after(() => stack?.close());

let n = 0;
const unique = (what: string) => `${what}-${process.pid}-${++n}`;

async function newBasin(): Promise<S2Basin> {
  const name = unique("s2basin");
  await s2.basins.create({ basin: name });
  return s2.basin(name);
}

async function newStream(): Promise<S2Stream> {
  const basin = await newBasin();
  const name = unique("stream");
  await basin.streams.create({ stream: name });
  return basin.stream(name, { forceTransport: "fetch" });
}

const text = (body: string, headers?: [string, string][]) =>
  AppendRecord.string({ body, ...(headers ? { headers } : {}) });

describe("basins and streams", () => {
  test("create, list, get config, reconfigure and delete a basin", async () => {
    const name = unique("s2basin");
    const created = await s2.basins.create({
      basin: name,
      config: { defaultStreamConfig: { storageClass: "express" } },
    });
    assert.equal(created.name, name);
    const listed = await s2.basins.list({ prefix: name });
    assert.deepEqual(
      listed.basins.map((b) => b.name),
      [name],
    );
    assert.equal(listed.hasMore, false);
    const config = await s2.basins.getConfig({ basin: name });
    assert.equal(config.defaultStreamConfig?.storageClass, "express");
    const changed = await s2.basins.reconfigure({ basin: name, createStreamOnAppend: true });
    assert.equal(changed.createStreamOnAppend, true);
    await s2.basins.delete({ basin: name });
    await assert.rejects(s2.basins.getConfig({ basin: name }), (err: S2Error) => {
      assert.equal(err.status, 404);
      assert.equal(err.code, "basin_not_found");
      return true;
    });
  });

  test("ensure creates a basin, then answers the existing one", async () => {
    const name = unique("s2basin");
    const first = await s2.basins.ensure({ basin: name });
    assert.deepEqual([first.result, first.basin.name], ["created", name]);
    const again = await s2.basins.ensure({ basin: name });
    assert.deepEqual([again.result, again.basin.name], ["noop", name]);
    const changed = await s2.basins.ensure({ basin: name, config: { createStreamOnRead: true } });
    assert.equal(changed.result, "updated");
    assert.equal((await s2.basins.getConfig({ basin: name })).createStreamOnRead, true);
  });

  test("ensure creates a stream, then answers the existing one", async () => {
    const basin = await newBasin();
    const first = await basin.streams.ensure({ stream: "s" });
    assert.equal(first.result, "created");
    const again = await basin.streams.ensure({ stream: "s" });
    assert.equal(again.result, "noop");
    const changed = await basin.streams.ensure({
      stream: "s",
      config: { retentionPolicy: { ageSecs: 60 }, deleteOnEmpty: { minAgeSecs: 30 } },
    });
    assert.equal(changed.result, "updated");
    const config = await basin.streams.getConfig({ stream: "s" });
    assert.deepEqual(
      [config.retentionPolicy, config.deleteOnEmpty],
      [{ ageSecs: 60 }, { minAgeSecs: 30 }],
    );
    const made = await basin.streams.ensure({
      stream: "t",
      config: { timestamping: { mode: "arrival" } },
    });
    assert.equal(made.result, "created");
    assert.equal((await basin.streams.getConfig({ stream: "t" })).timestamping?.mode, "arrival");
  });

  test("create, list, get config, reconfigure and delete a stream", async () => {
    const basin = await newBasin();
    await basin.streams.create({
      stream: "a/b",
      config: { retentionPolicy: { ageSecs: 3600 }, timestamping: { mode: "arrival" } },
    });
    await basin.streams.create({ stream: "c" });
    const listed = await basin.streams.list();
    assert.deepEqual(
      listed.streams.map((s) => s.name),
      ["a/b", "c"],
    );
    assert.equal(listed.hasMore, false);
    const config = await basin.streams.getConfig({ stream: "a/b" });
    assert.deepEqual(config.retentionPolicy, { ageSecs: 3600 });
    assert.equal(config.timestamping?.mode, "arrival");
    const changed = await basin.streams.reconfigure({ stream: "a/b", storageClass: "express" });
    assert.equal(changed.storageClass, "express");
    await basin.streams.delete({ stream: "c" });
    const after = await basin.streams.list();
    assert.deepEqual(
      after.streams.map((s) => s.name),
      ["a/b"],
    );
  });
});

describe("records", () => {
  test("append text and bytes, read them as text and as bytes, check the tail", async () => {
    const stream = await newStream();
    const ack = await stream.append(
      AppendInput.create([
        text("hello", [["content-type", "text/plain"]]),
        AppendRecord.bytes({ body: new Uint8Array([0, 1, 2, 255]) }),
      ]),
    );
    assert.equal(ack.start.seqNum, 0);
    assert.equal(ack.end.seqNum, 2);
    const asBytes = await stream.read({ start: { from: { seqNum: 0 } } }, { as: "bytes" });
    assert.deepEqual(
      asBytes.records.map((r) => [r.seqNum, [...r.body]]),
      [
        [0, [...Buffer.from("hello")]],
        [1, [0, 1, 2, 255]],
      ],
    );
    assert.deepEqual(
      asBytes.records[0]?.headers.map(([k, v]) => [
        Buffer.from(k).toString(),
        Buffer.from(v).toString(),
      ]),
      [["content-type", "text/plain"]],
    );
    const asText = await stream.read({
      start: { from: { seqNum: 0 } },
      stop: { limits: { count: 1 } },
    });
    assert.equal(asText.records.length, 1);
    assert.equal(asText.records[0]?.body, "hello");
    assert.deepEqual(asText.records[0]?.headers, [["content-type", "text/plain"]]);
    const tail = await stream.checkTail();
    assert.equal(tail.tail.seqNum, 2);
  });

  test("a match_seq_num miss is the SDK's SeqNumMismatchError, nothing appended", async () => {
    const stream = await newStream();
    await stream.append(AppendInput.create([text("a")]));
    await assert.rejects(
      stream.append(AppendInput.create([text("b")], { matchSeqNum: 5 })),
      (err) => err instanceof SeqNumMismatchError && err.expectedSeqNum === 1,
    );
    assert.equal((await stream.checkTail()).tail.seqNum, 1);
  });

  test("fence and trim are command records with seq_nums; a fencing miss is FencingTokenMismatchError", async () => {
    const stream = await newStream();
    await stream.append(AppendInput.create([text("a"), text("b"), text("c")]));
    const fenced = await stream.append(AppendInput.create([AppendRecord.fence("tok-1")]));
    assert.equal(fenced.start.seqNum, 3);
    assert.equal(fenced.end.seqNum, 4);
    await assert.rejects(
      stream.append(AppendInput.create([text("d")], { fencingToken: "other" })),
      (err) => err instanceof FencingTokenMismatchError && err.expectedFencingToken === "tok-1",
    );
    const ok = await stream.append(AppendInput.create([text("d")], { fencingToken: "tok-1" }));
    assert.equal(ok.start.seqNum, 4);

    const trimmed = await stream.append(AppendInput.create([AppendRecord.trim(2)]));
    assert.equal(trimmed.start.seqNum, 5);
    const read = await stream.read({ start: { from: { seqNum: 0 }, clamp: true } });
    assert.deepEqual(
      read.records.map((r) => [r.seqNum, r.headers.length === 0 ? r.body : r.headers[0]]),
      [
        [2, "c"],
        [3, ["", "fence"]],
        [4, "d"],
        [5, ["", "trim"]],
      ],
    );
    const data = await stream.read({
      start: { from: { seqNum: 0 }, clamp: true },
      ignoreCommandRecords: true,
    });
    assert.deepEqual(
      data.records.map((r) => [r.seqNum, r.body]),
      [
        [2, "c"],
        [4, "d"],
      ],
    );
  });

  test("a fence conditioned on match_seq_num claims a stream once; with data, atomically", async () => {
    const stream = await newStream();
    const claim = await stream.append(
      AppendInput.create([AppendRecord.fence("leader-1"), text("first")], { matchSeqNum: 0 }),
    );
    assert.deepEqual([claim.start.seqNum, claim.end.seqNum], [0, 2]);
    // A second claimant with the same condition misses, and nothing of its batch lands.
    await assert.rejects(
      stream.append(
        AppendInput.create([AppendRecord.fence("leader-2"), text("second")], { matchSeqNum: 0 }),
      ),
      (err) => err instanceof SeqNumMismatchError && err.expectedSeqNum === 2,
    );
    await assert.rejects(
      stream.append(AppendInput.create([text("x")], { fencingToken: "leader-2" })),
      (err) => err instanceof FencingTokenMismatchError && err.expectedFencingToken === "leader-1",
    );
    assert.equal((await stream.checkTail()).tail.seqNum, 2);
  });
});

describe("sessions on the fetch transport", () => {
  test("an append session acks several batches in order", async () => {
    const stream = await newStream();
    const session = await stream.appendSession();
    const tickets = [];
    for (let i = 0; i < 5; i++) {
      tickets.push(await session.submit(AppendInput.create([text(`r${i}a`), text(`r${i}b`)])));
    }
    const acks = await Promise.all(tickets.map((t) => t.ack()));
    assert.deepEqual(
      acks.map((a) => [a.start.seqNum, a.end.seqNum]),
      [
        [0, 2],
        [2, 4],
        [4, 6],
        [6, 8],
        [8, 10],
      ],
    );
    await session.close();
  });

  test("a read session follows live appends", async () => {
    const stream = await newStream();
    await stream.append(AppendInput.create([text("before")]));
    const session = await stream.readSession({ start: { from: { seqNum: 0 } } });
    const seen: string[] = [];
    const it = session[Symbol.asyncIterator]();
    const next = async () => {
      const r = await it.next();
      assert.equal(r.done, false);
      return r.value;
    };
    seen.push((await next()).body);
    await stream.append(AppendInput.create([text("live-1"), text("live-2")]));
    while (seen.length < 3) seen.push((await next()).body);
    assert.deepEqual(seen, ["before", "live-1", "live-2"]);
    await it.return?.();
  });

  test("bytes that are not UTF-8, read as text, arrive with U+FFFD as S2 sends them", async () => {
    const stream = await newStream();
    await stream.append(
      AppendInput.create([AppendRecord.bytes({ body: new Uint8Array([0x61, 0xff, 0x62]) })]),
    );
    const session = await stream.readSession({
      start: { from: { seqNum: 0 } },
      stop: { limits: { count: 1 } },
    });
    const bodies: string[] = [];
    for await (const record of session) bodies.push(record.body);
    assert.deepEqual(bodies, ["a\uFFFDb"]);
    const unary = await stream.read({ start: { from: { seqNum: 0 } } });
    assert.equal(unary.records[0]?.body, "a\uFFFDb");
    const bytes = await stream.read({ start: { from: { seqNum: 0 } } }, { as: "bytes" });
    assert.deepEqual([...(bytes.records[0]?.body ?? [])], [0x61, 0xff, 0x62]);
  });

  test("a bounded read session ends once caught up; bytes read as bytes", async () => {
    const stream = await newStream();
    await stream.append(
      AppendInput.create([AppendRecord.bytes({ body: new Uint8Array([255]) }), text("x")]),
    );
    const session = await stream.readSession(
      { start: { from: { seqNum: 0 } }, stop: { limits: { count: 10 } } },
      { as: "bytes" },
    );
    const bodies: number[][] = [];
    for await (const record of session) bodies.push([...record.body]);
    assert.deepEqual(bodies, [[255], [120]]);
  });
});
