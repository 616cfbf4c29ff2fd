// S2's protobuf messages (proto/s2/v1/s2.proto) on the wire: one codec per message, decoding to
// the shapes src/gen describes (snake_case, uint64 as exact decimal strings, bytes as Buffer).
import { join } from "node:path";
import protobuf from "protobufjs";
import { mediaType } from "../../contract/media-type.ts";
import { PROTO_DIR } from "../../contract/proto/index.ts";
import type { AppendAck, AppendAck__Output } from "../../gen/s2/v1/AppendAck.ts";
import type { AppendInput, AppendInput__Output } from "../../gen/s2/v1/AppendInput.ts";
import type { ReadBatch, ReadBatch__Output } from "../../gen/s2/v1/ReadBatch.ts";
import { s2Error } from "./errors.ts";

export interface S2Codec<In, Out> {
  encode(message: In): Buffer;
  /** Refuses bytes that are not the message with S2's 400 bad_proto. */
  decode(bytes: Uint8Array): Out;
}

const root = new protobuf.Root();
root.loadSync(join(PROTO_DIR, "s2/v1/s2.proto"), { keepCase: true });

const CONVERSION: protobuf.IConversionOptions = { longs: String, defaults: true, oneofs: true };

function codec<In, Out>(name: string): S2Codec<In, Out> {
  const type = root.lookupType(`s2.v1.${name}`);
  return {
    encode(message) {
      const bytes = type.encode(type.fromObject(message as object)).finish();
      return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    },
    decode(bytes) {
      try {
        return type.toObject(type.decode(bytes), CONVERSION) as Out;
      } catch (err) {
        throw s2Error(
          "bad_proto",
          `the body is not an S2 ${name} message: ${(err as Error).message}`,
        );
      }
    },
  };
}

export const S2_PROTO_TYPE = "application/protobuf";
/** The media types S2 takes for protobuf bodies (its mime.rs): ours, and the older x- form. */
export const S2_PROTO_TYPES = [S2_PROTO_TYPE, "application/x-protobuf"] as const;

/** Whether a reply goes as protobuf: S2 reads only the first type `Accept` names. */
export function wantsProtoReply(accept: string | undefined): boolean {
  if (accept === undefined) return false;
  return (S2_PROTO_TYPES as readonly string[]).includes(mediaType(accept.split(",")[0] ?? ""));
}

/** The messages unary appends and reads carry, and s2s frames hold. */
export const s2Wire = {
  AppendInput: codec<AppendInput, AppendInput__Output>("AppendInput"),
  AppendAck: codec<AppendAck, AppendAck__Output>("AppendAck"),
  ReadBatch: codec<ReadBatch, ReadBatch__Output>("ReadBatch"),
};
