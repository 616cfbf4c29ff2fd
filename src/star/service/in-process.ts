// The star's unary handlers called from its own process (an embedded star's gateway): the call
// object a handler sees carries the request, metadata, deadline and cancellation as grpc-js's
// would, and the answer leaves as protobuf bytes, as on the wire.
import { EventEmitter } from "node:events";
import * as grpc from "@grpc/grpc-js";
import type { InProcessEnd, InProcessStar } from "../../contract/proto/index.ts";

interface Entry {
  def: grpc.MethodDefinition<unknown, unknown>;
  handler: grpc.handleUnaryCall<unknown, unknown>;
}

/** What a unary handler reads of its call: grpc-js's ServerUnaryCall, in part. */
class InProcessCall extends EventEmitter {
  cancelled = false;
  readonly request: unknown;
  readonly metadata: grpc.Metadata;
  readonly #deadline: number;
  readonly #path: string;

  constructor(path: string, request: unknown, metadata: grpc.Metadata, deadline: number) {
    super();
    this.#path = path;
    this.request = request;
    this.metadata = metadata;
    this.#deadline = deadline;
  }

  getDeadline(): grpc.Deadline {
    return Number.isFinite(this.#deadline) ? new Date(this.#deadline) : Infinity;
  }

  getPeer(): string {
    return "in-process";
  }

  getPath(): string {
    return this.#path;
  }
}

const ended = (code: grpc.status, details: string, sent = true): InProcessEnd => ({
  code,
  details,
  metadata: new grpc.Metadata(),
  sent,
});

export class InProcessServer implements InProcessStar {
  readonly #entries = new Map<string, Entry>();
  #closed = false;

  /** Serves the unary methods of a service, with the handlers given to the gRPC server. */
  add(service: grpc.ServiceDefinition, handlers: grpc.UntypedServiceImplementation): void {
    for (const [name, def] of Object.entries(service)) {
      if (def.requestStream || def.responseStream) continue;
      const handler = handlers[name] as grpc.handleUnaryCall<unknown, unknown> | undefined;
      if (handler) this.#entries.set(def.path, { def, handler });
    }
  }

  /** Refuses calls from now on, as a server that stopped listening; those started go on. */
  close(): void {
    this.#closed = true;
  }

  unary(
    path: string,
    bytes: Buffer,
    metadata: grpc.Metadata,
    deadline: number,
    done: (end: InProcessEnd) => void,
  ): { cancel(): void } | undefined {
    const entry = this.#entries.get(path);
    if (!entry) return undefined;
    let finished = false;
    // Never before unary() returns (a handler may answer at once, a refused token), and never
    // inside the caller's cancel(): as over a connection, the end comes in a later turn.
    const finish = (end: InProcessEnd) => {
      if (finished) return;
      finished = true;
      clearTimeout(timer);
      queueMicrotask(() => done(end));
    };
    const stop = (code: grpc.status, details: string) => {
      if (finished) return;
      call.cancelled = true;
      call.emit("cancelled", details);
      finish(ended(code, details));
    };
    if (this.#closed) {
      queueMicrotask(() => done(ended(grpc.status.UNAVAILABLE, "the star is stopping", false)));
      return { cancel() {} };
    }
    let request: unknown;
    try {
      request = entry.def.requestDeserialize(bytes);
    } catch (err) {
      const details = `the request does not decode: ${(err as Error).message}`;
      queueMicrotask(() => done(ended(grpc.status.INTERNAL, details)));
      return { cancel() {} };
    }
    const call = new InProcessCall(path, request, metadata.clone(), deadline);
    const left = deadline - Date.now();
    const timer = Number.isFinite(left)
      ? setTimeout(
          () => stop(grpc.status.DEADLINE_EXCEEDED, "the call's deadline passed"),
          Math.max(0, left),
        )
      : undefined;
    const answer: grpc.sendUnaryData<unknown> = (err, res) => {
      if (err) {
        const code = err.code ?? grpc.status.UNKNOWN;
        const details = err.details ?? ("message" in err ? err.message : "");
        return finish({
          code,
          details,
          metadata: err.metadata?.clone() ?? new grpc.Metadata(),
          sent: true,
        });
      }
      let response: Buffer;
      try {
        response = entry.def.responseSerialize(res);
      } catch (e) {
        return finish(
          ended(grpc.status.INTERNAL, `the answer does not encode: ${(e as Error).message}`),
        );
      }
      finish({
        code: grpc.status.OK,
        details: "OK",
        metadata: new grpc.Metadata(),
        response,
        sent: true,
      });
    };
    try {
      entry.handler(call as unknown as grpc.ServerUnaryCall<unknown, unknown>, answer);
    } catch (err) {
      finish(ended(grpc.status.INTERNAL, `the handler failed: ${(err as Error).message}`));
    }
    return { cancel: () => stop(grpc.status.CANCELLED, "cancelled") };
  }
}
