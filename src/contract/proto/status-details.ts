// Typed error details in google.rpc.Status, carried in the grpc-status-details-bin trailer.
import { Metadata } from "@grpc/grpc-js";
import type { IConversionOptions, Type } from "protobufjs";
import type { BatchTooLarge__Output as BatchTooLarge } from "../../gen/nova/v1/BatchTooLarge.ts";
import type { ContentTypeMismatch__Output as ContentTypeMismatch } from "../../gen/nova/v1/ContentTypeMismatch.ts";
import type { FencingTokenMismatch__Output as FencingTokenMismatch } from "../../gen/nova/v1/FencingTokenMismatch.ts";
import type { LogDamaged__Output as LogDamaged } from "../../gen/nova/v1/LogDamaged.ts";
import type { NotFoundDetail__Output as NotFoundDetail } from "../../gen/nova/v1/NotFoundDetail.ts";
import type { NotOwner__Output as NotOwner } from "../../gen/nova/v1/NotOwner.ts";
import type { ProducerFenced__Output as ProducerFenced } from "../../gen/nova/v1/ProducerFenced.ts";
import type { ProducerSeqGap__Output as ProducerSeqGap } from "../../gen/nova/v1/ProducerSeqGap.ts";
import type { ProducerSeqStale__Output as ProducerSeqStale } from "../../gen/nova/v1/ProducerSeqStale.ts";
import type { SeqNumMismatch__Output as SeqNumMismatch } from "../../gen/nova/v1/SeqNumMismatch.ts";
import type { StreamClosed__Output as StreamClosed } from "../../gen/nova/v1/StreamClosed.ts";
import type { TailDetail__Output as TailDetail } from "../../gen/nova/v1/TailDetail.ts";
import type { ThroughputExceeded__Output as ThroughputExceeded } from "../../gen/nova/v1/ThroughputExceeded.ts";
import type { WriterSeqRegression__Output as WriterSeqRegression } from "../../gen/nova/v1/WriterSeqRegression.ts";
import { protoRoot } from "./load.ts";

export const STATUS_DETAILS_KEY = "grpc-status-details-bin";

/** The detail messages a star may attach, by their proto name. */
export interface DetailTypes {
  NotOwner: NotOwner;
  SeqNumMismatch: SeqNumMismatch;
  FencingTokenMismatch: FencingTokenMismatch;
  TailDetail: TailDetail;
  NotFoundDetail: NotFoundDetail;
  BatchTooLarge: BatchTooLarge;
  ThroughputExceeded: ThroughputExceeded;
  LogDamaged: LogDamaged;
  ProducerSeqGap: ProducerSeqGap;
  ProducerSeqStale: ProducerSeqStale;
  ProducerFenced: ProducerFenced;
  StreamClosed: StreamClosed;
  ContentTypeMismatch: ContentTypeMismatch;
  WriterSeqRegression: WriterSeqRegression;
}
export type DetailName = keyof DetailTypes;
export type Detail = { [K in DetailName]: { type: K; value: DetailTypes[K] } }[DetailName];

const TYPE_URL_PREFIX = "type.googleapis.com/nova.v1.";
const DETAIL_NAMES: readonly DetailName[] = [
  "NotOwner",
  "SeqNumMismatch",
  "FencingTokenMismatch",
  "TailDetail",
  "NotFoundDetail",
  "BatchTooLarge",
  "ThroughputExceeded",
  "LogDamaged",
  "ProducerSeqGap",
  "ProducerSeqStale",
  "ProducerFenced",
  "StreamClosed",
  "ContentTypeMismatch",
  "WriterSeqRegression",
];

let status: Type | undefined;
/** google.rpc.Status, looked up once (on the first error with details). */
const statusType = (): Type => {
  status ??= protoRoot().lookupType("google.rpc.Status");
  return status;
};

const TO_OBJECT: IConversionOptions = { longs: String, enums: String, defaults: true };

/** Encodes a google.rpc.Status with the given details. */
export function encodeStatusDetails(code: number, message: string, details: Detail[]): Buffer {
  const anys = details.map((d) => {
    const type = protoRoot().lookupType(`nova.v1.${d.type}`);
    return {
      type_url: TYPE_URL_PREFIX + d.type,
      value: type.encode(type.fromObject(d.value as unknown as Record<string, unknown>)).finish(),
    };
  });
  const type = statusType();
  return Buffer.from(type.encode(type.fromObject({ code, message, details: anys })).finish());
}

/**
 * Decodes the nova details of a grpc-status-details-bin value; unknown types, and bytes that do
 * not decode (a peer's bug, a middlebox), are skipped: the error keeps its status and message.
 */
export function decodeStatusDetails(bin: Buffer | Uint8Array): Detail[] {
  const statusMessage = statusType();
  let status: { details?: { type_url: string; value: Uint8Array }[] };
  try {
    status = statusMessage.toObject(statusMessage.decode(bin), TO_OBJECT);
  } catch {
    return [];
  }
  const out: Detail[] = [];
  for (const any of status.details ?? []) {
    if (!any.type_url.startsWith(TYPE_URL_PREFIX)) continue;
    const name = any.type_url.slice(TYPE_URL_PREFIX.length) as DetailName;
    if (!DETAIL_NAMES.includes(name)) continue;
    const type = protoRoot().lookupType(`nova.v1.${name}`);
    try {
      out.push({ type: name, value: type.toObject(type.decode(any.value), TO_OBJECT) } as Detail);
    } catch {
      // One detail that does not decode is left out; the others stand.
    }
  }
  return out;
}

/** Trailing metadata that carries the details for a server-side error. */
export function detailsMetadata(code: number, message: string, details: Detail[]): Metadata {
  const md = new Metadata();
  md.set(STATUS_DETAILS_KEY, encodeStatusDetails(code, message, details));
  return md;
}

/** The first detail of the given type in an error's metadata, if any. */
export function findDetail<K extends DetailName>(
  metadata: Metadata | undefined,
  type: K,
): DetailTypes[K] | undefined {
  const bin = metadata?.get(STATUS_DETAILS_KEY)[0];
  if (!(bin instanceof Buffer)) return undefined;
  const found = decodeStatusDetails(bin).find((d) => d.type === type);
  return found?.value as DetailTypes[K] | undefined;
}
