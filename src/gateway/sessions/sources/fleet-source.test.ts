import assert from "node:assert/strict";
import { test } from "node:test";
import { status } from "@grpc/grpc-js";
import { detailsMetadata } from "../../../contract/proto/index.ts";
import type { SubscribeRequest } from "../../../gen/nova/v1/SubscribeRequest.ts";
import type { SubscribeResponse__Output } from "../../../gen/nova/v1/SubscribeResponse.ts";
import { FakeCall } from "../../upstream/fake-call.test-helper.ts";
import type { SubscribeCall, Upstream } from "../../upstream/index.ts";
import { FleetError, StarCallError } from "../../upstream/index.ts";
import { fleetSource, isFailover } from "./fleet-source.ts";
import type { SourceBatch } from "./source.ts";

type Frame = SubscribeResponse__Output;
const frame = (seqs: number[], tail: number): Frame => ({
  records: seqs.map((s) => ({
    seq_num: String(s),
    timestamp_ms: "0",
    body: Buffer.from(`r${s}`),
    headers: [],
  })),
  tail: { seq_num: String(tail), timestamp_ms: "0" },
  closed: false,
});

/** A subscribe() refused with an error, or a call the step drives. */
type Step = Error | ((call: FakeCall<Frame>) => void);

/** An upstream whose each subscribe() is answered by the next scripted step. */
function scripted(steps: Step[]) {
  const requests: SubscribeRequest[] = [];
  const calls: FakeCall<Frame>[] = [];
  const upstream = {
    subscribe: async (req: SubscribeRequest) => {
      requests.push(req);
      const step = steps.shift();
      if (!step) throw new Error("no more scripted subscribes");
      if (step instanceof Error) throw step;
      const call = new FakeCall<Frame>();
      step(call);
      calls.push(call);
      return call as unknown as SubscribeCall;
    },
  } as unknown as Upstream;
  return { upstream, requests, calls };
}

const unavailable = () =>
  new StarCallError({ code: status.UNAVAILABLE, details: "down" }, { method: "Subscribe" });

async function take(source: AsyncIterable<SourceBatch>, n: number): Promise<string[]> {
  const seqs: string[] = [];
  for await (const batch of source) {
    for (const r of batch.records) seqs.push(r.seq_num);
    if (seqs.length >= n) break;
  }
  return seqs;
}

const fast = { baseMs: 1, maxMs: 2 };

test("re-subscribes from the cursor after UNAVAILABLE: no gap, no duplicate", async () => {
  let open = 0;
  const { upstream, requests } = scripted([
    (call) => {
      call.send(frame([0, 1, 2], 3));
      setImmediate(() => call.finish(status.UNAVAILABLE));
    },
    unavailable(),
    (call) => {
      call.send(frame([3, 4], 5));
    },
  ]);
  const source = fleetSource({
    upstream,
    bucket: "b",
    key: "k",
    failoverMs: 10_000,
    backoff: fast,
    calls: { opened: () => open++, closed: () => open-- },
  });
  const seqs = await take(
    source({ start: { seq_num: "0" }, clamp: false }, new AbortController().signal),
    5,
  );
  assert.deepEqual(seqs, ["0", "1", "2", "3", "4"]);
  assert.deepEqual(
    requests.map((r) => [r.seq_num, r.clamp]),
    [
      ["0", false],
      ["3", false],
      ["3", false],
    ],
  );
  assert.equal(open, 0, "every upstream call ended");
});

test("a start at the tail resolves to a seq_num with the caught-up frame", async () => {
  const { upstream, requests } = scripted([
    (call) => {
      call.send(frame([], 7));
      setImmediate(() => call.finish(status.UNAVAILABLE));
    },
    (call) => call.send(frame([7], 8)),
  ]);
  const source = fleetSource({
    upstream,
    bucket: "b",
    key: "k",
    failoverMs: 10_000,
    backoff: fast,
  });
  assert.deepEqual(
    await take(source({ start: {}, clamp: true }, new AbortController().signal), 1),
    ["7"],
  );
  assert.equal(requests[0]?.seq_num, undefined);
  assert.equal(requests[0]?.clamp, true);
  assert.deepEqual([requests[1]?.seq_num, requests[1]?.clamp], ["7", false]);
});

test("a start past the tail that the star clamped resumes from the tail it found", async () => {
  const { upstream, requests } = scripted([
    (call) => {
      call.send(frame([], 5));
      setImmediate(() => call.finish(status.UNAVAILABLE));
    },
    (call) => call.send(frame([5, 6], 7)),
  ]);
  const source = fleetSource({
    upstream,
    bucket: "b",
    key: "k",
    failoverMs: 10_000,
    backoff: fast,
  });
  assert.deepEqual(
    await take(source({ start: { seq_num: "10" }, clamp: true }, new AbortController().signal), 2),
    ["5", "6"],
  );
  assert.deepEqual(
    requests.map((r) => [r.seq_num, r.clamp]),
    [
      ["10", true],
      ["5", false],
    ],
  );
});

test("NotOwner mid-stream fails over; other failures are thrown at once", async () => {
  const notOwner = detailsMetadata(status.FAILED_PRECONDITION, "moved", [
    { type: "NotOwner", value: { leader_id: "s2", leader_address: "x:1" } },
  ]);
  const moved = new StarCallError(
    { code: status.FAILED_PRECONDITION, details: "moved", metadata: notOwner },
    { method: "Subscribe" },
  );
  assert.equal(isFailover(moved), true);
  assert.equal(isFailover(unavailable()), true);
  assert.equal(isFailover(new FleetError("redirects_exhausted", "m")), true);
  assert.equal(isFailover(new FleetError("closed", "m")), false);
  const notFound = new StarCallError(
    { code: status.NOT_FOUND, details: "stream x" },
    { method: "Subscribe" },
  );
  assert.equal(isFailover(notFound), false);
  // A connection torn down under the call (GOAWAY or session error with HTTP/2 code 2).
  const reset = new StarCallError(
    {
      code: status.INTERNAL,
      details:
        "Received RST_STREAM with code 2 triggered by internal client error: Session closed with error code 2",
    },
    { method: "Subscribe" },
  );
  assert.equal(isFailover(reset), true);
  const bug = new StarCallError(
    { code: status.INTERNAL, details: "internal error: x is undefined" },
    { method: "Subscribe" },
  );
  assert.equal(isFailover(bug), false);

  const { upstream } = scripted([notFound]);
  const source = fleetSource({
    upstream,
    bucket: "b",
    key: "k",
    failoverMs: 10_000,
    backoff: fast,
  });
  await assert.rejects(
    take(source({ start: {}, clamp: false }, new AbortController().signal), 1),
    (e) => e === notFound,
  );
});

test("gives up with the last failure once failing over outlasts its budget", async () => {
  const steps = Array.from({ length: 1000 }, () => unavailable());
  const { upstream } = scripted(steps);
  const source = fleetSource({ upstream, bucket: "b", key: "k", failoverMs: 30, backoff: fast });
  await assert.rejects(
    take(source({ start: {}, clamp: false }, new AbortController().signal), 1),
    (e) => e instanceof StarCallError && e.code === status.UNAVAILABLE,
  );
});

test("abort cancels the upstream call and ends the source", async () => {
  let open = 0;
  const { upstream, calls } = scripted([(call) => call.send(frame([0], 1))]);
  const abort = new AbortController();
  const source = fleetSource({
    upstream,
    bucket: "b",
    key: "k",
    failoverMs: 10_000,
    calls: { opened: () => open++, closed: () => open-- },
  })({ start: {}, clamp: false }, abort.signal);
  const it = source[Symbol.asyncIterator]();
  assert.equal((await it.next()).value?.records.length, 1);
  const pending = it.next();
  abort.abort(new Error("gone"));
  await assert.rejects(pending, /gone/);
  assert.equal(calls[0]?.cancelled, true);
  assert.equal(open, 0);
});
