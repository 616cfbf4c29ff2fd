import assert from "node:assert/strict";
import { test } from "node:test";
import * as grpc from "@grpc/grpc-js";
import { type InProcessEnd, nova } from "../../contract/proto/index.ts";
import { StarError } from "../errors.ts";
import { errorEnd, InProcessServer } from "./in-process.ts";

const SERVICE = nova.DataPlaneService.service;
const CHECK_TAIL = SERVICE.CheckTail;
const TAIL = { tail: { seq_num: "7", timestamp_ms: "1700000000000" } };

type Handler = grpc.handleUnaryCall<unknown, unknown>;

function serverWith(handlers: Record<string, Handler>): InProcessServer {
  const server = new InProcessServer();
  server.add(SERVICE, handlers);
  return server;
}

/** Starts a CheckTail and resolves with how it ended. */
function checkTail(
  server: InProcessServer,
  opts: { metadata?: grpc.Metadata; deadline?: number } = {},
): { ended: Promise<InProcessEnd>; call: { cancel(): void } } {
  let resolve: (end: InProcessEnd) => void = () => {};
  const ended = new Promise<InProcessEnd>((r) => {
    resolve = r;
  });
  const request = CHECK_TAIL.requestSerialize({ bucket: "b", key: "k" });
  const call = server.unary(
    CHECK_TAIL.path,
    request,
    opts.metadata ?? new grpc.Metadata(),
    opts.deadline ?? Number.POSITIVE_INFINITY,
    resolve,
  );
  return { ended, call };
}

test("a call reaches its handler with the decoded request, and its answer leaves as bytes", async () => {
  const server = serverWith({
    CheckTail: (call, callback) => {
      assert.deepEqual(
        {
          bucket: (call.request as { bucket: string }).bucket,
          key: (call.request as { key: string }).key,
        },
        { bucket: "b", key: "k" },
      );
      assert.equal(call.getDeadline(), Number.POSITIVE_INFINITY);
      callback(null, TAIL);
    },
  });
  const end = await checkTail(server).ended;
  assert.equal(end.code, grpc.status.OK);
  assert.equal(end.sent, true);
  assert.ok(end.response);
  assert.deepEqual(CHECK_TAIL.responseDeserialize(end.response), { ...TAIL, closed: false });
});

test("the handler sees the caller's metadata and deadline, and changes to it stay its own", async () => {
  const deadline = Date.now() + 60_000;
  const metadata = new grpc.Metadata();
  metadata.set("authorization", "Bearer t");
  const server = serverWith({
    CheckTail: (call, callback) => {
      assert.deepEqual(call.metadata.get("authorization"), ["Bearer t"]);
      assert.equal(call.getDeadline(), deadline);
      call.metadata.set("authorization", "changed");
      callback(null, TAIL);
    },
  });
  await checkTail(server, { metadata, deadline }).ended;
  assert.deepEqual(metadata.get("authorization"), ["Bearer t"]);
});

test("an answer given at once is heard after unary() returns, as over a connection", async () => {
  const server = serverWith({ CheckTail: (_call, callback) => callback(null, TAIL) });
  let heard = false;
  let returned = false;
  const end = await new Promise<InProcessEnd>((resolve) => {
    const call = server.unary(
      CHECK_TAIL.path,
      CHECK_TAIL.requestSerialize({ bucket: "b", key: "k" }),
      new grpc.Metadata(),
      Infinity,
      (e) => {
        heard = true;
        assert.equal(returned, true);
        resolve(e);
      },
    );
    assert.ok(call);
    assert.equal(heard, false);
    returned = true;
  });
  assert.equal(end.code, grpc.status.OK);
});

test("a handler that throws ends the call UNKNOWN, its message kept in, as grpc-js does", async () => {
  const server = serverWith({
    CheckTail: () => {
      throw new Error("boom");
    },
  });
  const end = await checkTail(server).ended;
  assert.deepEqual([end.code, end.details], [grpc.status.UNKNOWN, "Unknown error"]);
});

test("an error keeps its code, message and status details", async () => {
  const refusal = new StarError(grpc.status.NOT_FOUND, "no such stream", [
    { type: "NotFoundDetail", value: { resource: "RESOURCE_STREAM", bucket: "b", key: "k" } },
  ]);
  const server = serverWith({ CheckTail: (_call, callback) => callback(refusal) });
  const end = await checkTail(server).ended;
  assert.equal(end.code, grpc.status.NOT_FOUND);
  assert.equal(end.details, "no such stream");
  assert.equal(end.response, undefined);
  assert.deepEqual(end.metadata.getMap(), refusal.metadata.getMap());
});

test("a cancelled call ends CANCELLED and tells its handler, both after cancel() returns", async () => {
  let answer: grpc.sendUnaryData<unknown> = () => {};
  let heard = false;
  const server = serverWith({
    CheckTail: (call, callback) => {
      call.once("cancelled", () => {
        heard = true;
      });
      answer = callback;
    },
  });
  const ends: InProcessEnd[] = [];
  const call = server.unary(
    CHECK_TAIL.path,
    CHECK_TAIL.requestSerialize({ bucket: "b", key: "k" }),
    new grpc.Metadata(),
    Infinity,
    (end) => ends.push(end),
  );
  call.cancel();
  assert.deepEqual([heard, ends.length], [false, 0]);
  await new Promise((r) => setImmediate(r));
  assert.equal(heard, true);
  answer(null, TAIL);
  await new Promise((r) => setImmediate(r));
  assert.deepEqual(
    ends.map((e) => [e.code, e.sent]),
    [[grpc.status.CANCELLED, true]],
  );
});

test("a call past its deadline tells its handler and ends DEADLINE_EXCEEDED", async () => {
  let heard = false;
  const server = serverWith({
    CheckTail: (call) => {
      call.once("cancelled", () => {
        heard = true;
      });
    },
  });
  const end = await checkTail(server, { deadline: Date.now() + 20 }).ended;
  assert.equal(end.code, grpc.status.DEADLINE_EXCEEDED);
  assert.equal(heard, true);
});

test("a closed server refuses calls unseen: UNAVAILABLE, not sent", async () => {
  let ran = false;
  const server = serverWith({
    CheckTail: (_call, callback) => {
      ran = true;
      callback(null, TAIL);
    },
  });
  server.close();
  const end = await checkTail(server).ended;
  assert.equal(end.code, grpc.status.UNAVAILABLE);
  assert.equal(end.sent, false);
  assert.equal(ran, false);
});

test("a request that does not decode ends INTERNAL without reaching the handler", async () => {
  let ran = false;
  const server = serverWith({
    CheckTail: () => {
      ran = true;
    },
  });
  const end = await new Promise<InProcessEnd>((resolve) =>
    server.unary(
      CHECK_TAIL.path,
      Buffer.from([0xff, 0xff]),
      new grpc.Metadata(),
      Infinity,
      resolve,
    ),
  );
  assert.equal(end.code, grpc.status.INTERNAL);
  assert.match(end.details, /does not decode/);
  assert.equal(ran, false);
});

test("streaming methods and unknown paths are not served in process: UNIMPLEMENTED", async () => {
  const server = serverWith({
    CheckTail: () => {},
    Subscribe: () => {},
    AppendSession: () => {},
  });
  assert.equal(server.serves(CHECK_TAIL.path), true);
  for (const path of [
    SERVICE.Subscribe.path,
    SERVICE.AppendSession.path,
    "/nova.v1.X/Y",
    SERVICE.Read.path,
  ]) {
    assert.equal(server.serves(path), false, path);
    const end = await new Promise<InProcessEnd>((resolve) =>
      server.unary(path, Buffer.alloc(0), new grpc.Metadata(), Infinity, resolve),
    );
    assert.equal(end.code, grpc.status.UNIMPLEMENTED, path);
  }
});

test("an error's status as grpc-js's server makes it: trailers given win, a code must be an integer", () => {
  const own = new grpc.Metadata();
  own.set("a", "own");
  const given = new grpc.Metadata();
  given.set("a", "given");
  const coded = { code: grpc.status.NOT_FOUND, details: "gone", metadata: own };
  assert.deepEqual(errorEnd(coded, given).metadata.get("a"), ["given"]);
  assert.deepEqual(errorEnd(coded, undefined).metadata.get("a"), ["own"]);
  assert.deepEqual(
    [errorEnd(coded, undefined).code, errorEnd(coded, undefined).details],
    [grpc.status.NOT_FOUND, "gone"],
  );
  const errno = Object.assign(new Error("no such file"), { code: "ENOENT", details: "x" });
  const end = errorEnd(errno as unknown as grpc.ServerErrorResponse, undefined);
  assert.deepEqual([end.code, end.details, end.sent], [grpc.status.UNKNOWN, "no such file", true]);
  assert.equal(errorEnd({ code: 2.5 as grpc.status }, undefined).code, grpc.status.UNKNOWN);
  assert.equal(errorEnd({}, undefined).details, "Unknown error");
});

test("close() refuses new calls and resolves once those running have ended", async () => {
  let answer: grpc.sendUnaryData<unknown> = () => {};
  const server = serverWith({
    CheckTail: (_call, callback) => {
      answer = callback;
    },
  });
  const running = checkTail(server);
  let closed = 0;
  const closing = Promise.all([server.close(), server.close()]).then(() => {
    closed = 2;
  });
  assert.equal((await checkTail(server).ended).code, grpc.status.UNAVAILABLE);
  assert.equal(closed, 0);
  answer(null, TAIL);
  await closing;
  assert.equal(closed, 2);
  assert.equal((await running.ended).code, grpc.status.OK);
});

test("cancelAll() ends the calls still running CANCELLED, and close() then resolves", async () => {
  const server = serverWith({ CheckTail: () => {} });
  const running = [checkTail(server), checkTail(server)];
  const closing = server.close();
  server.cancelAll();
  await closing;
  for (const { ended } of running) assert.equal((await ended).code, grpc.status.CANCELLED);
  await server.close();
});
