// A unary call of nova's services made within one process, for a gateway and its embedded star:
// the request and the answer as their protobuf bytes and the metadata and deadline as gRPC
// carries them, with no HTTP/2 connection between. On `npm start` the loopback hop (HTTP/2
// framing on both ends, grpc-js's server, the socket writes) was about a third of a small
// append's CPU (docs/benchmarks.md). Streaming calls keep the connection.
import type * as grpc from "@grpc/grpc-js";

export interface InProcessEnd {
  code: grpc.status;
  details: string;
  /** The answer's trailers, as the star sent them (status details). */
  metadata: grpc.Metadata;
  /** The answer's bytes, when OK. */
  response?: Buffer;
  /** Whether the star may have acted on the request: false only when it refused it unseen. */
  sent: boolean;
}

export interface InProcessStar {
  /** Whether the star serves a unary call at `path` in process. */
  serves(path: string): boolean;
  /**
   * Starts the unary call at `path` (UNIMPLEMENTED where it serves none). `deadline` is in ms
   * since the epoch (Infinity: none). `done` is called once, and never before unary() returns
   * or inside the caller's cancel(): as over a connection, the end comes in a later turn.
   */
  unary(
    path: string,
    request: Buffer,
    metadata: grpc.Metadata,
    deadline: number,
    done: (end: InProcessEnd) => void,
  ): { cancel(): void };
}
