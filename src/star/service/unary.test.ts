import assert from "node:assert/strict";
import { EventEmitter } from "node:events";
import { test } from "node:test";
import { Metadata, type ServerUnaryCall, type sendUnaryData, status } from "@grpc/grpc-js";
import pino from "pino";
import { StarError } from "../errors.ts";
import { currentCaller } from "../fleet/caller.ts";
import { RunningCalls } from "./running-calls.ts";
import { unary } from "./unary.ts";

const serving = { log: pino({ level: "silent" }), calls: new RunningCalls() };

/** A unary call as grpc-js hands it to a handler: an emitter with the request. */
function fakeCall(request: string): ServerUnaryCall<string, string> {
  return Object.assign(new EventEmitter(), {
    request,
    metadata: new Metadata(),
    getDeadline: () => Number.POSITIVE_INFINITY,
  }) as unknown as ServerUnaryCall<string, string>;
}

function answer(): { callback: sendUnaryData<string>; done: Promise<[unknown, unknown]> } {
  let resolve: (v: [unknown, unknown]) => void = () => {};
  const done = new Promise<[unknown, unknown]>((r) => {
    resolve = r;
  });
  return { callback: (err, res) => resolve([err, res]), done };
}

test("a call cancelled while it runs aborts its caller's signal", async () => {
  let signal: AbortSignal | undefined;
  let release = () => {};
  const handler = unary(serving, async (req: string) => {
    signal = currentCaller()?.signal;
    await new Promise<void>((r) => {
      release = r;
    });
    return req;
  });
  const call = fakeCall("x");
  const { callback, done } = answer();
  handler(call, callback);
  await new Promise((r) => setImmediate(r));
  assert.equal(signal?.aborted, false);
  call.emit("cancelled", "cancelled");
  assert.equal(signal?.aborted, true);
  release();
  assert.deepEqual(await done, [null, "x"]);
});

test("'cancelled' after the answer (grpc-js sends it when the stream closes) aborts nothing", async () => {
  for (const fails of [false, true]) {
    let signal: AbortSignal | undefined;
    const handler = unary(serving, async (req: string) => {
      signal = currentCaller()?.signal;
      if (fails) throw new StarError(status.NOT_FOUND, "no such stream");
      return req;
    });
    const call = fakeCall("y");
    const { callback, done } = answer();
    handler(call, callback);
    const [err, res] = await done;
    if (fails) assert.equal((err as { code: number }).code, status.NOT_FOUND);
    else assert.equal(res, "y");
    call.emit("cancelled", "cancelled");
    assert.equal(signal?.aborted, false);
    assert.equal(call.listenerCount("cancelled"), 0);
  }
});

test("a call still running when the star gives up on it is answered with the given error", async () => {
  let signal: AbortSignal | undefined;
  const handler = unary(serving, async (req: string) => {
    signal = currentCaller()?.signal;
    await new Promise(() => {});
    return req;
  });
  const quick = unary(serving, async (req: string) => req);
  const done = answer();
  handler(fakeCall("held"), done.callback);
  const quickDone = answer();
  quick(fakeCall("quick"), quickDone.callback);
  assert.deepEqual(await quickDone.done, [null, "quick"]);
  assert.equal(serving.calls.size, 1);
  serving.calls.endAll(new StarError(status.UNAVAILABLE, "star is shutting down"));
  const [err] = await done.done;
  assert.equal((err as { code: number }).code, status.UNAVAILABLE);
  assert.equal(signal?.aborted, true);
  assert.equal(serving.calls.size, 0);
});
