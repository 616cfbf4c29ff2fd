// Appends are decoded under a count. Decoding makes objects for every record and header, some
// hundreds of bytes each for two bytes of an empty record on the wire, so a message at the gRPC
// size cap could take tens of gigabytes before validateBatch saw it. The Append and
// AppendSession deserializers stop at the first record past MAX_BATCH_RECORDS, or the first
// header past MAX_HEADERS_PER_RECORD in one record, and hand the handler a stand-in it refuses
// with INVALID_ARGUMENT naming the cap: a deserializer's throw would reach the client as a bare
// INTERNAL. The count rides protobufjs's own decoders, so it is of what decoding would make.
import type * as grpc from "@grpc/grpc-js";
import type protobuf from "protobufjs";
import { LOADER_OPTIONS, protoRoot } from "../../contract/proto/index.ts";
import { MAX_BATCH_RECORDS, MAX_HEADERS_PER_RECORD } from "../../contract/wire-limits.ts";
import { invalidArgument } from "../errors.ts";

class OverCap extends Error {}

/** The decode under way, while a guarded deserializer runs (decoding is synchronous). */
let counting: { records: number; headers: number } | undefined;
const refusals = new WeakMap<object, string>();

/** Runs `before` ahead of every decode of `type` (once its decoder is generated). */
function beforeDecode(type: protobuf.Type, before: () => void): void {
  type.setup();
  const decode = type.decode;
  type.decode = function (this: protobuf.Type, reader, length) {
    before();
    return decode.call(this, reader, length);
  } as typeof type.decode;
}

let counted: protobuf.Root | undefined;

/** The protos' root with its record and header decoders counted (once per process). */
function countedRoot(): protobuf.Root {
  if (counted) return counted;
  const root = protoRoot();
  beforeDecode(root.lookupType("nova.v1.AppendRecord"), () => {
    if (!counting) return;
    if (++counting.records > MAX_BATCH_RECORDS) {
      throw new OverCap(
        `a batch holds at most ${MAX_BATCH_RECORDS} records; send more as several batches`,
      );
    }
    counting.headers = 0;
  });
  beforeDecode(root.lookupType("nova.v1.Header"), () => {
    if (counting && ++counting.headers > MAX_HEADERS_PER_RECORD) {
      throw new OverCap(
        `record ${counting.records - 1}: at least ${MAX_HEADERS_PER_RECORD + 1} headers, at most ${MAX_HEADERS_PER_RECORD} allowed`,
      );
    }
  });
  counted = root;
  return root;
}

function guarded(
  def: grpc.MethodDefinition<unknown, unknown>,
  typeName: string,
): grpc.MethodDefinition<unknown, unknown> {
  // Looked up on the first append: parsing the protos into a root is about 20 ms of a start.
  let type: protobuf.Type | undefined;
  const toObject = (t: protobuf.Type, message: protobuf.Message) =>
    t.toObject(message, LOADER_OPTIONS);
  return {
    ...def,
    requestDeserialize: (bytes: Buffer) => {
      type ??= countedRoot().lookupType(typeName);
      counting = { records: 0, headers: 0 };
      try {
        return toObject(type, type.decode(bytes));
      } catch (err) {
        if (!(err instanceof OverCap)) throw err;
        const standIn = toObject(type, type.create());
        refusals.set(standIn, err.message);
        return standIn;
      } finally {
        counting = undefined;
      }
    },
  };
}

/** The data plane with its append requests decoded under the caps. */
export function guardAppends(service: grpc.ServiceDefinition): grpc.ServiceDefinition {
  return {
    ...service,
    Append: guarded(
      service.Append as grpc.MethodDefinition<unknown, unknown>,
      "nova.v1.AppendRequest",
    ),
    AppendSession: guarded(
      service.AppendSession as grpc.MethodDefinition<unknown, unknown>,
      "nova.v1.AppendSessionRequest",
    ),
  };
}

/** Throws INVALID_ARGUMENT for a request whose decoding stopped at a cap. */
export function refuseOverCap(request: object): void {
  const refusal = refusals.get(request);
  if (refusal !== undefined) throw invalidArgument(refusal);
}
