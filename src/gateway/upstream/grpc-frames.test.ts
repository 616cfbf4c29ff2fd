import assert from "node:assert/strict";
import { test } from "node:test";
import { status } from "@grpc/grpc-js";
import { StarCallError } from "./errors.ts";
import { FakeCall } from "./fake-call.test-helper.ts";
import { callFrames } from "./grpc-frames.ts";

test("frames come in order, the call paused between pulls, then the stream ends", async () => {
  const call = new FakeCall();
  for (const n of [1, 2, 3]) call.send(n);
  const got: number[] = [];
  const frames = callFrames<number>(call, "Subscribe", new AbortController().signal);
  const first = await frames.next();
  got.push(first.value as number);
  // Nothing more flows while the consumer is not pulling.
  assert.equal(call.isPaused(), true);
  call.finish(status.OK);
  for await (const n of frames) got.push(n);
  assert.deepEqual(got, [1, 2, 3]);
  assert.ok(call.pauses >= 3);
  assert.equal(call.cancelled, false);
});

test("a failure status is thrown after the frames before it", async () => {
  const call = new FakeCall();
  call.send(1);
  call.send(2);
  const frames = callFrames<number>(call, "Subscribe", new AbortController().signal);
  const got: number[] = [(await frames.next()).value as number];
  call.finish(status.UNAVAILABLE);
  await assert.rejects(
    (async () => {
      for await (const n of frames) got.push(n);
    })(),
    (err: unknown) => err instanceof StarCallError && err.code === status.UNAVAILABLE,
  );
  assert.deepEqual(got, [1, 2]);
});

test("abort while waiting cancels the call at once", async () => {
  const call = new FakeCall();
  const abort = new AbortController();
  const frames = callFrames<number>(call, "Subscribe", abort.signal);
  const pending = frames.next();
  abort.abort(new Error("client gone"));
  await assert.rejects(pending, /client gone/);
  assert.equal(call.cancelled, true);
});

test("returning early cancels the call", async () => {
  const call = new FakeCall();
  call.send(1);
  call.send(2);
  for await (const n of callFrames<number>(call, "Subscribe", new AbortController().signal)) {
    assert.equal(n, 1);
    break;
  }
  assert.equal(call.cancelled, true);
});
