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
    return this.#deadline;
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

/**
 * A handler's error as grpc-js's server sends it: an integer code with its details, else
 * UNKNOWN with the error's message; the trailers given with it, else the error's own.
 */
export function errorEnd(
  err: grpc.ServerErrorResponse | Partial<grpc.StatusObject>,
  trailers: grpc.Metadata | undefined,
): InProcessEnd {
  const message = "message" in err ? err.message : "Unknown error";
  const coded = typeof err.code === "number" && Number.isInteger(err.code);
  const code = coded ? (err.code as grpc.status) : grpc.status.UNKNOWN;
  const details = coded && typeof err.details === "string" ? err.details : message;
  const metadata = (trailers ?? err.metadata)?.clone() ?? new grpc.Metadata();
  return { code, details, metadata, sent: true };
}

export class InProcessServer implements InProcessStar {
  readonly #entries = new Map<string, Entry>();
  /** The calls running, each by what cancels it. */
  readonly #running = new Set<() => void>();
  /** Set by close(): calls are refused from then on. */
  #closing: Promise<void> | undefined;
  #idle: (() => void) | undefined;

  /** Serves the unary methods of a service, with the handlers given to the gRPC server. */
  add(service: grpc.ServiceDefinition, handlers: grpc.UntypedServiceImplementation): void {
    for (const [name, def] of Object.entries(service)) {
      if (def.requestStream || def.responseStream) continue;
      const handler = handlers[name] as grpc.handleUnaryCall<unknown, unknown> | undefined;
      if (handler) this.#entries.set(def.path, { def, handler });
    }
  }

  serves(path: string): boolean {
    return this.#entries.has(path);
  }

  /**
   * Refuses calls from now on, as a server that stopped listening; resolves once those started
   * have ended (grpc-js's tryShutdown).
   */
  close(): Promise<void> {
    this.#closing ??=
      this.#running.size === 0
        ? Promise.resolve()
        : new Promise((resolve) => {
            this.#idle = resolve;
          });
    return this.#closing;
  }

  /** Ends every call still running with CANCELLED (grpc-js's forceShutdown). */
  cancelAll(): void {
    for (const cancel of [...this.#running]) cancel();
  }

  unary(
    path: string,
    bytes: Buffer,
    metadata: grpc.Metadata,
    deadline: number,
    done: (end: InProcessEnd) => void,
  ): { cancel(): void } {
    const later = (end: InProcessEnd) => {
      queueMicrotask(() => done(end));
      return { cancel() {} };
    };
    const entry = this.#entries.get(path);
    if (!entry) return later(ended(grpc.status.UNIMPLEMENTED, `no unary method ${path} here`));
    if (this.#closing) return later(ended(grpc.status.UNAVAILABLE, "the star is stopping", false));
    let request: unknown;
    try {
      request = entry.def.requestDeserialize(bytes);
    } catch (err) {
      return later(
        ended(grpc.status.INTERNAL, `the request does not decode: ${(err as Error).message}`),
      );
    }
    const call = new InProcessCall(path, request, metadata.clone(), deadline);
    let finished = false;
    const finish = (end: InProcessEnd) => {
      if (finished) return;
      finished = true;
      clearTimeout(timer);
      this.#running.delete(cancel);
      if (this.#running.size === 0) this.#idle?.();
      queueMicrotask(() => done(end));
    };
    // Ended first, then told, on the next tick as grpc-js tells it: an answer the handler gives
    // when it hears is too late.
    const stop = (code: grpc.status, details: string) => {
      if (finished) return;
      finish(ended(code, details));
      call.cancelled = true;
      process.nextTick(() => call.emit("cancelled", details));
    };
    const cancel = () => stop(grpc.status.CANCELLED, "cancelled");
    this.#running.add(cancel);
    const left = deadline - Date.now();
    const timer = Number.isFinite(left)
      ? setTimeout(
          () => stop(grpc.status.DEADLINE_EXCEEDED, "the call's deadline passed"),
          Math.max(0, left),
        )
      : undefined;
    const answer: grpc.sendUnaryData<unknown> = (err, res, trailers) => {
      if (err) return finish(errorEnd(err, trailers ?? undefined));
      let response: Buffer;
      try {
        response = entry.def.responseSerialize(res);
      } catch (e) {
        return finish(
          ended(grpc.status.INTERNAL, `the answer does not encode: ${(e as Error).message}`),
        );
      }
      finish({ ...ended(grpc.status.OK, "OK"), response });
    };
    try {
      entry.handler(call as unknown as grpc.ServerUnaryCall<unknown, unknown>, answer);
    } catch {
      // grpc-js answers a handler that throws with UNKNOWN and keeps the message to itself.
      finish(ended(grpc.status.UNKNOWN, "Unknown error"));
    }
    return { cancel };
  }
}
