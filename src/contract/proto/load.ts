// Loads the nova protos once, with the options the generated types in src/gen assume:
// snake_case field names, uint64/int64 as exact decimal strings, enums by name, oneof markers.
import { join } from "node:path";
import * as grpc from "@grpc/grpc-js";
import * as protoLoader from "@grpc/proto-loader";
import protobuf from "protobufjs";
import type { ProtoGrpcType as AdminPlaneProto } from "../../gen/adminplane.ts";
import type { ProtoGrpcType as DataPlaneProto } from "../../gen/dataplane.ts";

export const PROTO_DIR = join(import.meta.dirname, "..", "..", "..", "proto");

const PROTO_FILES = [
  "nova/v1/dataplane.proto",
  "nova/v1/adminplane.proto",
  "google/rpc/status.proto",
];

export const LOADER_OPTIONS: protoLoader.Options = {
  keepCase: true,
  longs: String,
  enums: String,
  defaults: true,
  oneofs: true,
  includeDirs: [PROTO_DIR],
};

const packageDefinition = protoLoader.loadSync(PROTO_FILES, LOADER_OPTIONS);
const loaded = grpc.loadPackageDefinition(packageDefinition) as unknown as DataPlaneProto &
  AdminPlaneProto;

/** Service constructors and definitions for nova.v1. */
export const nova = loaded.nova.v1;

/**
 * The same protos as a protobufjs root, for messages outside any RPC (status details): parsed
 * on first use, as only errors with details need it (about 20 ms of a process's start).
 */
export function protoRoot(): protobuf.Root {
  if (!root) {
    root = new protobuf.Root();
    root.resolvePath = (_origin, target) =>
      target.startsWith("google/protobuf/") ? target : join(PROTO_DIR, target);
    root.loadSync(PROTO_FILES, { keepCase: true });
  }
  return root;
}
let root: protobuf.Root | undefined;
