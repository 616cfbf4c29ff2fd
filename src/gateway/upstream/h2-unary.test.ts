import assert from "node:assert/strict";
import http2 from "node:http2";
import { type TestContext, test } from "node:test";
import * as grpc from "@grpc/grpc-js";
import type { MethodDefinition } from "@grpc/proto-loader";
import { waitFor } from "../../../test/harness/wait.ts";
import {
  findDetail,
  nova,
  type RequestOf,
  type ResponseOf,
  type UnaryMethod,
} from "../../contract/proto/index.ts";
import { FakeStar, notOwner, starError, within } from "./fake-star.test-helper.ts";
import { startUnary, type UnaryCall, type UnaryEnd } from "./h2-unary.ts";

const X = { bucket: "logs", key: "x" };
const TAIL = { seq_num: "7", timestamp_ms: "12" };

async function star(
  t: TestContext,
): Promise<{ star: FakeStar; session: http2.ClientHttp2Session }> {
  const s = await FakeStar.start("s");
  const session = http2.connect(`http://${s.address}`);
  session.on("error", () => {});
  t.after(() => {
    session.destroy();
    s.stop();
  });
  return { star: s, session };
}

function call<M extends UnaryMethod>(
  session: http2.ClientHttp2Session,
  method: M,
  request: RequestOf<M>,
  opts: { metadata?: grpc.Metadata; deadline?: number; maxMessageBytes?: number } = {},
): { call: UnaryCall; ended: Promise<UnaryEnd<ResponseOf<M>>> } {
  const def = nova.DataPlaneService.service[method] as unknown as MethodDefinition<
    RequestOf<M>,
    unknown,
    unknown,
    ResponseOf<M>
  >;
  let started!: UnaryCall;
  const ended = new Promise<UnaryEnd<ResponseOf<M>>>((resolve) => {
    started = startUnary(
      session,
      def,
      request,
      opts.metadata ?? new grpc.Metadata(),
      opts.deadline ?? Infinity,
      resolve,
      opts.maxMessageBytes,
    );
  });
  return { call: started, ended };
}

test("a call's answer comes back decoded, with the caller's metadata sent along", async (t) => {
  const { star: s, session } = await star(t);
  let deadline: Date | number | undefined;
  s.unary.CheckTail = async (_req, serverCall) => {
    deadline = serverCall.getDeadline();
    return { tail: TAIL };
  };
  const metadata = new grpc.Metadata();
  metadata.set("authorization", "Bearer t");
  const end = await call(session, "CheckTail", X, { metadata, deadline: Date.now() + 5_000 }).ended;
  assert.equal(end.status.code, grpc.status.OK);
  assert.deepEqual(end.response?.tail, TAIL);
  assert.deepEqual(s.calls[0]?.metadata.get("authorization"), ["Bearer t"]);
  assert.ok(Number.isFinite(Number(deadline)), "the deadline goes along");
});

test("a refusal keeps its code, its decoded message and its details (NotOwner's leader)", async (t) => {
  const { star: s, session } = await star(t);
  s.unary.CheckTail = async () => {
    throw notOwner("127.0.0.1:4242");
  };
  const end = await call(session, "CheckTail", X).ended;
  assert.equal(end.status.code, grpc.status.FAILED_PRECONDITION);
  assert.match(end.status.details, /its leader is 127\.0\.0\.1:4242/);
  assert.equal(findDetail(end.status.metadata, "NotOwner")?.leader_address, "127.0.0.1:4242");
  assert.equal(end.sent, true);
  assert.equal(end.response, undefined);

  s.unary.CheckTail = async () => {
    throw starError(grpc.status.NOT_FOUND, "stream «x» 100% gone\nfor now");
  };
  const missing = await call(session, "CheckTail", X).ended;
  assert.equal(missing.status.code, grpc.status.NOT_FOUND);
  assert.equal(missing.status.details, "stream «x» 100% gone\nfor now");
});

test("the deadline ends a call the star never answers, as sent", async (t) => {
  const { star: s, session } = await star(t);
  s.unary.CheckTail = () => new Promise(() => {});
  const end = await within(
    "the deadline",
    call(session, "CheckTail", X, { deadline: Date.now() + 100 }).ended,
  );
  assert.equal(end.status.code, grpc.status.DEADLINE_EXCEEDED);
  assert.equal(end.sent, true);
});

test("cancel ends the call at once and the star sees it cancelled", async (t) => {
  const { star: s, session } = await star(t);
  let cancelled = false;
  s.unary.CheckTail = (_req, serverCall) =>
    new Promise(() => {
      serverCall.on("cancelled", () => {
        cancelled = true;
      });
    });
  const { call: started, ended } = call(session, "CheckTail", X);
  await waitFor(() => s.count("CheckTail") > 0, { message: "the call to reach the star" });
  started.cancel();
  const end = await within("the cancel", ended);
  assert.equal(end.status.code, grpc.status.CANCELLED);
  await waitFor(() => cancelled, { message: "the star's cancel" });
});

test("a star that goes away mid-call leaves it UNAVAILABLE and maybe sent", async (t) => {
  const { star: s, session } = await star(t);
  s.unary.Append = () => new Promise(() => {});
  const { ended } = call(session, "Append", { ...X, records: [{ body: Buffer.from("r") }] });
  await waitFor(() => s.count("Append") > 0, { message: "the call to reach the star" });
  s.stop();
  const end = await within("the star's end", ended);
  assert.equal(end.status.code, grpc.status.UNAVAILABLE);
  assert.equal(end.sent, true);
});

test("a session already closed fails the call as never sent", async (t) => {
  const { session } = await star(t);
  await new Promise<void>((resolve) => session.close(resolve));
  const end = await call(session, "CheckTail", X).ended;
  assert.equal(end.status.code, grpc.status.UNAVAILABLE);
  assert.equal(end.sent, false);
});

/** A bare HTTP/2 server that does `onStream` with each call's stream instead of answering. */
async function rawServer(
  t: TestContext,
  onStream: (stream: http2.ServerHttp2Stream) => void,
): Promise<http2.ClientHttp2Session> {
  const server = http2.createServer();
  server.on("stream", (stream) => {
    stream.on("error", () => {});
    onStream(stream);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  const session = http2.connect(`http://127.0.0.1:${port}`);
  session.on("error", () => {});
  await new Promise((resolve) => session.once("connect", resolve));
  t.after(() => {
    session.destroy();
    server.close();
  });
  return session;
}

test("a connection that drops after the request went out leaves the call maybe sent", async (t) => {
  const session = await rawServer(t, (stream) => {
    stream.once("data", () => stream.session?.destroy());
  });
  const end = await within("the drop", call(session, "Append", { ...X, records: [] }).ended);
  assert.equal(end.status.code, grpc.status.UNAVAILABLE);
  assert.equal(end.sent, true, "the star may have appended it: an Append must not be replayed");
});

test("a stream the star refuses unopened (REFUSED_STREAM) was never sent", async (t) => {
  const session = await rawServer(t, (stream) => {
    stream.close(http2.constants.NGHTTP2_REFUSED_STREAM);
  });
  const end = await within("the refusal", call(session, "Append", { ...X, records: [] }).ended);
  assert.equal(end.status.code, grpc.status.UNAVAILABLE);
  assert.equal(end.sent, false);
});

test("a request that does not encode fails INTERNAL, never sent", async (t) => {
  const { star: s, session } = await star(t);
  const { ended } = call(session, "Append", {
    ...X,
    records: [{ body: Buffer.from("x"), timestamp_ms: "1-2" }],
  });
  const end = await within("the call's end", ended);
  assert.equal(end.status.code, grpc.status.INTERNAL);
  assert.match(end.status.details, /does not encode/);
  assert.equal(end.sent, false);
  assert.equal(s.count("Append"), 0);
});

test("an answer over the message limit is cut off: RESOURCE_EXHAUSTED, not buffered", async (t) => {
  const { star: s, session } = await star(t);
  s.unary.Read = async () => ({
    records: [{ seq_num: "0", timestamp_ms: "0", headers: [], body: Buffer.alloc(4096) }],
    tail: TAIL,
  });
  const { ended } = call(session, "Read", X, { maxMessageBytes: 1024 });
  const end = await within("the call's end", ended);
  assert.equal(end.status.code, grpc.status.RESOURCE_EXHAUSTED);
  assert.match(end.status.details, /over the 1024-byte message limit/);
});
