import assert from "node:assert/strict";
import { once } from "node:events";
import http2, { type ServerHttp2Stream } from "node:http2";
import type { AddressInfo } from "node:net";
import { type TestContext, test } from "node:test";
import * as grpc from "@grpc/grpc-js";
import { detailsMetadata, findDetail, type Method } from "../../contract/proto/index.ts";
import type { AppendSessionResponse__Output } from "../../gen/nova/v1/AppendSessionResponse.ts";
import type { SubscribeResponse__Output } from "../../gen/nova/v1/SubscribeResponse.ts";
import { FleetError, notOwnerLeader, StarCallError } from "./errors.ts";
import {
  deadAddress,
  FakeStar,
  notOwner,
  starError,
  waitFor,
  within,
} from "./fake-star.test-helper.ts";
import { FleetClient, type FleetClientOptions } from "./fleet-client.ts";

const X = { bucket: "logs", key: "x" };
const TAIL = { seq_num: "7", timestamp_ms: "0" };
const APPENDED = { start: TAIL, end: { seq_num: "8", timestamp_ms: "0" }, tail: TAIL };

async function stars(t: TestContext, n: number): Promise<FakeStar[]> {
  const started = await Promise.all(Array.from({ length: n }, (_, i) => FakeStar.start(`s${i}`)));
  t.after(() => {
    for (const star of started) star.stop();
  });
  return started;
}

function fleet(t: TestContext, options: FleetClientOptions): FleetClient {
  const client = new FleetClient(options);
  t.after(() => client.close());
  return client;
}

/** An observer that keeps what it is told. */
function recorder() {
  const calls: string[] = [];
  const redirects: Method[] = [];
  return {
    calls,
    redirects,
    observer: {
      onCall: (method: Method, code: string) => calls.push(`${method} ${code}`),
      onRedirect: (method: Method) => redirects.push(method),
    },
  };
}

const serveRead = (star: FakeStar) => {
  star.unary.Read = async () => ({ records: [], tail: TAIL });
};
const redirectRead = (star: FakeStar, to: string) => {
  star.unary.Read = async () => {
    throw notOwner(to);
  };
};
const isFleetError = (code: string) => (err: unknown) =>
  err instanceof FleetError && err.code === code;
const isStarCallError =
  (code: grpc.status, fields: Partial<StarCallError> = {}) =>
  (err: unknown) => {
    assert.ok(err instanceof StarCallError, `expected a StarCallError, got ${err}`);
    assert.equal(err.code, code);
    for (const [name, value] of Object.entries(fields)) {
      assert.equal(err[name as keyof StarCallError], value, name);
    }
    return true;
  };

test("follows a NotOwner redirect, then goes straight to the cached leader", async (t) => {
  const [a, b] = await stars(t, 2);
  assert.ok(a && b);
  redirectRead(a, b.address);
  serveRead(b);
  const seen = recorder();
  const client = fleet(t, { stars: [a.address], observer: seen.observer });

  assert.deepEqual(await client.unary("Read", X), { records: [], tail: TAIL, closed: false });
  assert.equal(a.count("Read"), 1);
  assert.equal(b.count("Read"), 1);

  await client.unary("Read", X);
  assert.equal(a.count("Read"), 1);
  assert.equal(b.count("Read"), 2);
  assert.deepEqual(seen.calls, ["Read FAILED_PRECONDITION", "Read OK", "Read OK"]);
  assert.deepEqual(seen.redirects, ["Read"]);

  // Another stream is not routed by X's entry.
  await client.unary("Read", { bucket: "logs", key: "y" });
  assert.equal(a.count("Read"), 2);
});

test("gives up after maxHops redirects around a loop", async (t) => {
  const [a, b, c] = await stars(t, 3);
  assert.ok(a && b && c);
  redirectRead(a, b.address);
  redirectRead(b, c.address);
  redirectRead(c, a.address);
  const seen = recorder();
  const client = fleet(t, { stars: [a.address], observer: seen.observer });

  await assert.rejects(client.unary("Read", X), (err) => {
    assert.ok(isFleetError("redirects_exhausted")(err));
    assert.deepEqual((err as FleetError).hops, [a.address, b.address, c.address, a.address]);
    assert.match((err as Error).message, /after 3 hops/);
    return true;
  });
  assert.deepEqual([a.count(), b.count(), c.count()], [2, 1, 1]);
  assert.equal(seen.redirects.length, 3);
});

test("a NotOwner naming no leader is leader_unknown", async (t) => {
  const [a] = await stars(t, 1);
  assert.ok(a);
  redirectRead(a, "");
  const client = fleet(t, { stars: [a.address] });
  await assert.rejects(client.unary("Read", X), isFleetError("leader_unknown"));
});

test("a cached leader that stopped is forgotten; the call and the next go via a seed", async (t) => {
  const [a, b] = await stars(t, 2);
  assert.ok(a && b);
  redirectRead(a, b.address);
  serveRead(b);
  const seen = recorder();
  const client = fleet(t, { stars: [a.address], observer: seen.observer });
  await client.unary("Read", X);

  b.stop();
  serveRead(a); // ownership moved to a
  seen.calls.length = 0;
  await client.unary("Read", X);
  assert.deepEqual(seen.calls, ["Read UNAVAILABLE", "Read OK"]);
  await client.unary("Read", X);
  assert.deepEqual(seen.calls, ["Read UNAVAILABLE", "Read OK", "Read OK"]);
  assert.equal(a.count("Read"), 3);
});

test("a star answering UNAVAILABLE: a read moves to the next seed, which is preferred after", async (t) => {
  const [a, c] = await stars(t, 2);
  assert.ok(a && c);
  a.unary.Read = async () => {
    throw starError(grpc.status.UNAVAILABLE, "shutting down");
  };
  serveRead(c);
  const client = fleet(t, { stars: [a.address, c.address] });

  await client.unary("Read", X);
  assert.deepEqual([a.count(), c.count()], [1, 1]);
  await client.unary("Read", X);
  await client.unary("Read", X);
  assert.deepEqual([a.count(), c.count()], [1, 3]);
});

test("a star answering that the log a call needs is damaged is final: no other seed, outcome known", async (t) => {
  const [a, c] = await stars(t, 2);
  assert.ok(a && c);
  const details = "log object log/s9/00000000000000000004 is damaged; retry once repaired";
  const damaged = Object.assign(new Error(details), {
    code: grpc.status.UNAVAILABLE,
    details,
    metadata: detailsMetadata(grpc.status.UNAVAILABLE, details, [
      {
        type: "LogDamaged",
        value: {
          star_id: "s9",
          object_key: "log/s9/00000000000000000004",
          stream_id: "",
          missing_seq_num: "0",
        },
      },
    ]),
  });
  for (const star of [a, c]) {
    star.unary.Read = async () => {
      throw damaged;
    };
    star.unary.Append = async () => {
      throw damaged;
    };
  }
  const client = fleet(t, { stars: [a.address, c.address] });
  const named = (err: unknown) =>
    isStarCallError(grpc.status.UNAVAILABLE, { outcomeUnknown: false, details })(err) &&
    findDetail((err as StarCallError).metadata, "LogDamaged")?.star_id === "s9";
  await assert.rejects(client.unary("Read", X), named);
  await assert.rejects(
    client.unary("Append", { ...X, records: [{ body: Buffer.from("r") }] }),
    named,
  );
  assert.equal(a.count() + c.count(), 2, "one star asked each time");
});

test("requests for no stream go round-robin over the seeds", async (t) => {
  const [a, b] = await stars(t, 2);
  assert.ok(a && b);
  for (const star of [a, b]) star.unary.ListBuckets = async () => ({ buckets: [], next: "" });
  const client = fleet(t, { stars: [a.address, b.address] });
  for (let i = 0; i < 4; i++) await client.unary("ListBuckets", {});
  assert.deepEqual([a.count(), b.count()], [2, 2]);
});

test("an Append that fails with UNAVAILABLE after sending is not retried: outcome unknown", async (t) => {
  const [a, b, c] = await stars(t, 3);
  assert.ok(a && b && c);
  a.unary.Append = async () => {
    throw notOwner(b.address);
  };
  b.unary.Append = async () => {
    throw starError(grpc.status.UNAVAILABLE, "connection lost mid-append");
  };
  c.unary.Append = async () => APPENDED;
  const client = fleet(t, { stars: [a.address, c.address] });

  await assert.rejects(
    client.unary("Append", { ...X, records: [{ body: Buffer.from("r") }] }),
    isStarCallError(grpc.status.UNAVAILABLE, { outcomeUnknown: true, address: b.address }),
  );
  assert.deepEqual([a.count(), b.count(), c.count()], [1, 1, 0]);
});

test("an Append to a leader that cannot be reached was never sent, so it goes to a seed", async (t) => {
  const [a] = await stars(t, 1);
  assert.ok(a);
  const dead = await deadAddress();
  a.unary.Append = async () => {
    if (a.count("Append") === 1) throw notOwner(dead);
    return APPENDED;
  };
  const seen = recorder();
  const client = fleet(t, { stars: [a.address], observer: seen.observer });

  assert.deepEqual(await client.unary("Append", { ...X, records: [] }), {
    ...APPENDED,
    duplicate: false,
    closed: false,
  });
  assert.deepEqual(seen.calls, ["Append FAILED_PRECONDITION", "Append UNAVAILABLE", "Append OK"]);
  assert.equal(a.count("Append"), 2);
});

test("a leader that is down is named as unreachable and retryable, not as a redirect loop", async (t) => {
  const [a, c] = await stars(t, 2);
  assert.ok(a && c);
  const dead = await deadAddress();
  redirectRead(a, dead);
  redirectRead(c, dead);
  const client = fleet(t, { stars: [a.address, c.address] });
  await assert.rejects(client.unary("Read", X), (err) => {
    assert.ok(isFleetError("leader_unreachable")(err));
    assert.match(
      (err as Error).message,
      new RegExp(`the stream's leader leader \\(${dead}\\) is unreachable .*retryable`),
    );
    assert.doesNotMatch((err as Error).message, /disagree|hops/);
    const { hops } = err as FleetError;
    assert.equal(hops.length, 3);
    assert.equal(hops[1], dead);
    return true;
  });
  // One redirect to the dead leader, one other seed that names it again: no loop.
  assert.equal(a.count("Read") + c.count("Read"), 2);
});

test("creates are replayed after UNAVAILABLE only with a creation_token", async (t) => {
  const [a, c] = await stars(t, 2);
  assert.ok(a && c);
  a.unary.CreateStream = async () => {
    throw starError(grpc.status.UNAVAILABLE, "shutting down");
  };
  c.unary.CreateStream = async (request) => ({
    stream: { bucket: request.bucket, key: request.key },
  });

  const withToken = fleet(t, { stars: [a.address, c.address] });
  const created = await withToken.unary("CreateStream", { ...X, creation_token: "t1" });
  assert.equal(created.stream?.key, "x");
  assert.deepEqual([a.count(), c.count()], [1, 1]);

  const withoutToken = fleet(t, { stars: [a.address, c.address] });
  await assert.rejects(
    withoutToken.unary("CreateStream", X),
    isStarCallError(grpc.status.UNAVAILABLE, { outcomeUnknown: true }),
  );
  assert.deepEqual([a.count(), c.count()], [2, 1]);
});

test("every seed down: the call fails UNAVAILABLE after trying each once", async (t) => {
  const client = fleet(t, { stars: [await deadAddress(), await deadAddress()] });
  const seen = recorder();
  const observed = fleet(t, { stars: [await deadAddress()], observer: seen.observer });
  await assert.rejects(
    client.unary("Append", { ...X, records: [] }),
    isStarCallError(grpc.status.UNAVAILABLE, { outcomeUnknown: false }),
  );
  await assert.rejects(observed.unary("Read", X), isStarCallError(grpc.status.UNAVAILABLE));
  assert.deepEqual(seen.calls, ["Read UNAVAILABLE"]);
});

test("forwards the caller's authorization as gRPC metadata", async (t) => {
  const [a] = await stars(t, 1);
  assert.ok(a);
  serveRead(a);
  const client = fleet(t, { stars: [a.address] });
  await client.unary("Read", X, { authorization: "Bearer tok" });
  await client.unary("Read", X);
  assert.deepEqual(a.calls[0]?.metadata.get("authorization"), ["Bearer tok"]);
  assert.deepEqual(a.calls[1]?.metadata.get("authorization"), []);
});

test("once a star's bare session is up, unary calls take it: the same answers, no grpc-js", async (t) => {
  const [a] = await stars(t, 1);
  assert.ok(a);
  serveRead(a);
  const client = fleet(t, { stars: [a.address] });
  const viaGrpcJs = (i: number) =>
    String(a.calls[i]?.metadata.get("user-agent")[0] ?? "").startsWith("grpc-node-js");
  // The first call opens the session and, while it connects, takes the channel.
  const deadline = performance.now() + 10_000;
  for (let i = 0; ; i++) {
    assert.deepEqual((await client.unary("Read", X, { authorization: "Bearer t" })).tail, TAIL);
    assert.deepEqual(a.calls[i]?.metadata.get("authorization"), ["Bearer t"]);
    if (!viaGrpcJs(i)) break;
    assert.ok(performance.now() < deadline, "the bare session never came up");
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  a.unary.Read = async () => {
    throw notOwner("");
  };
  await assert.rejects(client.unary("Read", X), isFleetError("leader_unknown"));
  assert.equal(viaGrpcJs(a.calls.length - 1), false);
});

test("the verb's deadline fires on a star that never answers", async (t) => {
  const [a] = await stars(t, 1);
  assert.ok(a);
  const never = () => new Promise<never>(() => {});
  a.unary.Read = never;
  a.unary.Append = never;
  const client = fleet(t, { stars: [a.address], deadlines: { Read: 100 } });

  await assert.rejects(
    client.unary("Read", X),
    isStarCallError(grpc.status.DEADLINE_EXCEEDED, { outcomeUnknown: false }),
  );
  // An Append that timed out may still land.
  await assert.rejects(
    client.unary("Append", { ...X, records: [] }, { deadlineMs: 100 }),
    isStarCallError(grpc.status.DEADLINE_EXCEEDED, { outcomeUnknown: true }),
  );
  // Neither is tried again. On a loaded machine a deadline can fire before the star has taken
  // the call at all, so the star sees each at most once, not exactly once.
  assert.ok(
    a.count("Read") <= 1 && a.count("Append") <= 1,
    `${a.count("Read")}, ${a.count("Append")}`,
  );
});

test("aborting the signal cancels the star's call at once", async (t) => {
  const [a] = await stars(t, 1);
  assert.ok(a);
  let cancelled!: () => void;
  const starSawCancel = new Promise<void>((resolve) => {
    cancelled = resolve;
  });
  a.unary.Read = (_request, call) => {
    call.on("cancelled", cancelled);
    return new Promise<never>(() => {});
  };
  const client = fleet(t, { stars: [a.address] });
  const controller = new AbortController();
  const read = client.unary("Read", X, { signal: controller.signal });
  await waitFor("the star to receive the read", () => a.count("Read") === 1);
  controller.abort();
  await assert.rejects(read, (err) => {
    assert.ok(isStarCallError(grpc.status.CANCELLED, { name: "AbortError" })(err));
    return true;
  });
  await within("the star to see the call cancelled", starSawCancel);

  // Already aborted: no call is made.
  await assert.rejects(
    client.unary("Read", X, { signal: AbortSignal.abort() }),
    isStarCallError(grpc.status.CANCELLED, { name: "AbortError" }),
  );
  assert.equal(a.count("Read"), 1);
});

test("close() cancels calls in flight and refuses new ones", async (t) => {
  const [a] = await stars(t, 1);
  assert.ok(a);
  a.unary.Read = () => new Promise<never>(() => {});
  const client = new FleetClient({ stars: [a.address] });
  const read = client.unary("Read", X);
  await waitFor("the star to receive the read", () => a.count("Read") === 1);
  client.close();
  await assert.rejects(read, isStarCallError(grpc.status.CANCELLED));
  await assert.rejects(client.unary("Read", X), isFleetError("closed"));
});

test("an AppendSession open follows NotOwner and resolves on opened", async (t) => {
  const [a, b] = await stars(t, 2);
  assert.ok(a && b);
  a.appendSession = (call) => {
    call.once("data", () => call.emit("error", notOwner(b.address)));
  };
  b.appendSession = (call) => {
    let batches = 0;
    call.on("data", (frame) => {
      if (frame.open) {
        call.write({ opened: { window: 8, tail: TAIL, star_id: b.id } });
      } else {
        call.write({ ack: { batch_index: String(batches++), appended: APPENDED } });
      }
    });
    call.on("end", () => call.end());
  };
  const seen = recorder();
  const client = fleet(t, { stars: [a.address], observer: seen.observer });

  const session = await client.openAppendSession({ ...X, fencing_token: "f" });
  assert.equal(session.address, b.address);
  assert.equal(session.opened.star_id, b.id);
  assert.equal(session.opened.window, 8);
  assert.deepEqual(seen.redirects, ["AppendSession"]);

  session.call.write({ batch: { records: [{ body: Buffer.from("r") }] } });
  const [ack] = (await within("the ack", once(session.call, "data"))) as [
    AppendSessionResponse__Output,
  ];
  assert.equal(ack.frame, "ack");
  assert.equal(ack.ack?.batch_index, "0");
  const ended = once(session.call, "status");
  session.call.end();
  const [status] = (await within("the session to end", ended)) as [grpc.StatusObject];
  assert.equal(status.code, grpc.status.OK);

  // The leader is cached: the next session goes straight there.
  const again = await client.openAppendSession(X);
  assert.equal(again.address, b.address);
  assert.deepEqual([a.count(), b.count()], [1, 2]);
  again.call.end();
  await within("the second session to end", once(again.call, "status"));
  assert.deepEqual(seen.calls, [
    "AppendSession FAILED_PRECONDITION",
    "AppendSession OK",
    "AppendSession OK",
  ]);
});

test("an AppendSession handshake without opened before the deadline fails", async (t) => {
  const [a] = await stars(t, 1);
  assert.ok(a);
  let cancelled!: () => void;
  const starSawCancel = new Promise<void>((resolve) => {
    cancelled = resolve;
  });
  a.appendSession = (call) => call.on("cancelled", cancelled);
  const client = fleet(t, { stars: [a.address], deadlines: { AppendSession: 100 } });
  await assert.rejects(
    client.openAppendSession(X),
    isStarCallError(grpc.status.DEADLINE_EXCEEDED, { outcomeUnknown: false }),
  );
  await within("the star to see the session cancelled", starSawCancel);
});

test("subscribe goes to the known leader and learns one from a NotOwner end", async (t) => {
  const [a, b] = await stars(t, 2);
  assert.ok(a && b);
  a.subscribe = (call) => call.emit("error", notOwner(b.address));
  b.subscribe = (call) => {
    call.write({ records: [], tail: TAIL });
    call.end();
  };
  const client = fleet(t, { stars: [a.address] });

  const first = await client.subscribe({ ...X, seq_num: "0" });
  const [err] = (await within("the NotOwner end", once(first, "error"))) as [grpc.ServiceError];
  assert.equal(notOwnerLeader(err), b.address);

  const second = await client.subscribe({ ...X, seq_num: "0" });
  const batches: SubscribeResponse__Output[] = [];
  for await (const batch of second) batches.push(batch as SubscribeResponse__Output);
  assert.deepEqual(batches, [{ records: [], tail: TAIL, closed: false }]);
  assert.deepEqual([a.count(), b.count()], [1, 1]);
});

test("aborting a subscription cancels it on the star", async (t) => {
  const [a] = await stars(t, 1);
  assert.ok(a);
  let cancelled!: () => void;
  const starSawCancel = new Promise<void>((resolve) => {
    cancelled = resolve;
  });
  a.subscribe = (call) => call.on("cancelled", cancelled);
  const client = fleet(t, { stars: [a.address] });
  const controller = new AbortController();
  const call = await client.subscribe(X, { signal: controller.signal });
  await waitFor("the star to receive the subscription", () => a.count("Subscribe") === 1);
  // events.once would reject on the 'error' that precedes 'status'.
  const status = new Promise<grpc.StatusObject>((resolve) => call.on("status", resolve));
  controller.abort();
  await within("the star to see the subscription cancelled", starSawCancel);
  assert.equal((await within("the call to end", status)).code, grpc.status.CANCELLED);
});

test("health: the fleet is ready when some seed is", async (t) => {
  const [a, b] = await stars(t, 2);
  assert.ok(a && b);
  a.ready = false;
  const dead = await deadAddress();
  const client = fleet(t, { stars: [a.address, b.address, dead] });

  const health = await client.health();
  assert.equal(health.ready, true);
  assert.deepEqual(
    health.stars.map((s) => [s.address, s.ready, s.star_id]),
    [
      [a.address, false, a.id],
      [b.address, true, b.id],
      [dead, false, undefined],
    ],
  );
  assert.equal(typeof health.stars[2]?.error, "string");
  assert.equal((await client.health(a.address)).ready, false);

  b.ready = false;
  assert.equal((await client.health()).ready, false);
});

test("ready: true once one seed is, without waiting for a seed that hangs", async (t) => {
  const [a] = await stars(t, 1);
  assert.ok(a);
  // Takes the connection and never answers.
  const hung = http2.createServer();
  hung.on("stream", () => {});
  hung.listen(0, "127.0.0.1");
  await once(hung, "listening");
  t.after(() => {
    hung.close();
  });
  const hanging = `127.0.0.1:${(hung.address() as AddressInfo).port}`;
  const client = fleet(t, { stars: [hanging, a.address] });
  // Waiting for the hung seed would take the whole minute.
  assert.equal(await within("ready", client.ready({ deadlineMs: 60_000 })), true);
  a.ready = false;
  const dead = await deadAddress();
  const none = fleet(t, { stars: [a.address, dead] });
  assert.equal(await within("not ready", none.ready()), false);
});

test("refuses a fleet without stars", () => {
  assert.throws(() => new FleetClient({ stars: [] }), isFleetError("no_stars"));
});

/**
 * A raw HTTP/2 "star" that reads a whole Append (it may have stored it) and then ends it as
 * `end` says; its other calls are UNIMPLEMENTED. Its address and how many Appends it got.
 */
async function breakingStar(t: TestContext, end: (stream: ServerHttp2Stream) => void) {
  const server = http2.createServer();
  const seen = { appends: 0 };
  server.on("session", (session) => session.on("error", () => {}));
  server.on("stream", (stream, headers) => {
    stream.on("error", () => {});
    if (String(headers[":path"]).endsWith("/Append")) {
      seen.appends++;
      stream.on("data", () => {});
      stream.on("end", () => end(stream));
    } else {
      stream.respond(
        { ":status": 200, "content-type": "application/grpc", "grpc-status": "12" },
        { endStream: true },
      );
    }
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  t.after(() => server.close());
  return { address: `127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
}

for (const [how, end] of [
  [
    "resets it with code 2",
    (s: ServerHttp2Stream) => s.close(http2.constants.NGHTTP2_INTERNAL_ERROR),
  ],
  ["resets it with CANCEL", (s: ServerHttp2Stream) => s.close(http2.constants.NGHTTP2_CANCEL)],
  [
    "is shut down by force (its session destroyed)",
    (s: ServerHttp2Stream) => s.session?.destroy(undefined, http2.constants.NGHTTP2_CANCEL),
  ],
] as const) {
  test(`an Append whose star ${how} is UNAVAILABLE, outcome unknown, not retried`, async (t) => {
    const star = await breakingStar(t, end);
    const client = fleet(t, { stars: [star.address] });
    const append = client.unary("Append", { ...X, records: [{ body: Buffer.from("x") }] }, {});
    await assert.rejects(
      append,
      isStarCallError(grpc.status.UNAVAILABLE, { outcomeUnknown: true }),
    );
    assert.equal(star.seen.appends, 1);
  });
}
