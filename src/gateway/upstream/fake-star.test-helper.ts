// Small real gRPC servers on 127.0.0.1:0 playing stars in the fleet client's tests: each one
// counts calls per method, keeps their metadata, and answers with handlers a test swaps in
// (a method without one answers UNIMPLEMENTED). Not a test file: the runner takes *.test.ts.
import * as grpc from "@grpc/grpc-js";
import type { Method, UnaryMethod } from "../../contract/proto/index.ts";
import { detailsMetadata, nova } from "../../contract/proto/index.ts";
import type { AppendSessionRequest__Output } from "../../gen/nova/v1/AppendSessionRequest.ts";
import type { AppendSessionResponse } from "../../gen/nova/v1/AppendSessionResponse.ts";
import type { DataPlaneServiceDefinition } from "../../gen/nova/v1/DataPlaneService.ts";
import type { SubscribeRequest__Output } from "../../gen/nova/v1/SubscribeRequest.ts";
import type { SubscribeResponse } from "../../gen/nova/v1/SubscribeResponse.ts";

type Definition = DataPlaneServiceDefinition;
type ServerRequest<M extends Method> = ReturnType<Definition[M]["requestDeserialize"]>;
type ServerResponse<M extends Method> = Parameters<Definition[M]["responseSerialize"]>[0];

export type FakeUnaryHandler<M extends UnaryMethod> = (
  request: ServerRequest<M>,
  call: grpc.ServerUnaryCall<ServerRequest<M>, ServerResponse<M>>,
) => Promise<ServerResponse<M>>;
export type FakeAppendSessionHandler = (
  call: grpc.ServerDuplexStream<AppendSessionRequest__Output, AppendSessionResponse>,
) => void;
export type FakeSubscribeHandler = (
  call: grpc.ServerWritableStream<SubscribeRequest__Output, SubscribeResponse>,
) => void;

export class FakeStar {
  readonly id: string;
  readonly address: string;
  readonly unary: { [M in UnaryMethod]?: FakeUnaryHandler<M> } = {};
  appendSession: FakeAppendSessionHandler | undefined;
  subscribe: FakeSubscribeHandler | undefined;
  /** What Health answers. */
  ready = true;
  /** Every data plane call received, in order. */
  readonly calls: { method: Method; metadata: grpc.Metadata }[] = [];
  readonly #server: grpc.Server;

  private constructor(id: string, server: grpc.Server, address: string) {
    this.id = id;
    this.#server = server;
    this.address = address;
  }

  static async start(id: string): Promise<FakeStar> {
    const server = new grpc.Server();
    const port = await new Promise<number>((resolve, reject) =>
      server.bindAsync("127.0.0.1:0", grpc.ServerCredentials.createInsecure(), (err, p) =>
        err ? reject(err) : resolve(p),
      ),
    );
    const star = new FakeStar(id, server, `127.0.0.1:${port}`);
    server.addService(nova.DataPlaneService.service, star.#handlers());
    server.addService(nova.AdminPlaneService.service, {
      Health: (_call: unknown, callback: grpc.sendUnaryData<unknown>) =>
        callback(null, { star_id: id, ready: star.ready, members: [] }),
    });
    return star;
  }

  /** How many calls of the method (of any method without one) this star received. */
  count(method?: Method): number {
    return this.calls.filter((c) => method === undefined || c.method === method).length;
  }

  /** Stops at once: open connections are closed, as when a star process dies. */
  stop(): void {
    this.#server.forceShutdown();
  }

  #handlers(): grpc.UntypedServiceImplementation {
    const handlers: grpc.UntypedServiceImplementation = {};
    for (const [name, def] of Object.entries(nova.DataPlaneService.service)) {
      const method = name as Method;
      if (def.requestStream) {
        handlers[name] = (call: Parameters<FakeAppendSessionHandler>[0]) => {
          this.calls.push({ method, metadata: call.metadata });
          if (this.appendSession) this.appendSession(call);
          else call.emit("error", starError(grpc.status.UNIMPLEMENTED, `${name} not faked`));
        };
      } else if (def.responseStream) {
        handlers[name] = (call: Parameters<FakeSubscribeHandler>[0]) => {
          this.calls.push({ method, metadata: call.metadata });
          if (this.subscribe) this.subscribe(call);
          else call.emit("error", starError(grpc.status.UNIMPLEMENTED, `${name} not faked`));
        };
      } else {
        handlers[name] = (
          call: grpc.ServerUnaryCall<unknown, unknown>,
          callback: grpc.sendUnaryData<unknown>,
        ) => {
          this.calls.push({ method, metadata: call.metadata });
          const handler = (this.unary as Record<string, FakeUnaryHandler<"Read"> | undefined>)[
            name
          ];
          if (!handler) {
            callback(starError(grpc.status.UNIMPLEMENTED, `${name} not faked`));
            return;
          }
          handler(call.request as never, call as never).then(
            (response) => callback(null, response),
            (err: grpc.ServerErrorResponse) => callback(err),
          );
        };
      }
    }
    return handlers;
  }
}

/** A status a handler throws or emits. */
export function starError(code: grpc.status, details: string): grpc.ServerErrorResponse {
  return Object.assign(new Error(details), { code, details });
}

/** The refusal a non-leader answers with, naming the leader. */
export function notOwner(leaderAddress: string): grpc.ServerErrorResponse {
  const details = `not the stream's leader; its leader is ${leaderAddress || "unknown"}`;
  return Object.assign(new Error(details), {
    code: grpc.status.FAILED_PRECONDITION,
    details,
    metadata: detailsMetadata(grpc.status.FAILED_PRECONDITION, details, [
      { type: "NotOwner", value: { leader_id: "leader", leader_address: leaderAddress } },
    ]),
  });
}

/** An address nothing listens on: a star started and stopped before anyone connected. */
export async function deadAddress(): Promise<string> {
  const star = await FakeStar.start("dead");
  star.stop();
  return star.address;
}

/** Waits until the condition holds, failing after the timeout. */
export async function waitFor(what: string, condition: () => boolean, timeoutMs = 10_000) {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** The promise's value, or a failure naming what did not happen within the timeout. */
export async function within<T>(what: string, promise: Promise<T>, timeoutMs = 10_000): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out waiting for ${what}`)), timeoutMs);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
