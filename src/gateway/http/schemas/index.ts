// Every HTTP schema. The shared ones (with an $id) go to fastify.addSchema once and are used by
// reference (Type.Ref / { $ref: "Position" }), so each appears once in the OpenAPI components
// and Ajv never sees one $id twice inside a schema.
import type { TSchema } from "typebox";
import { Bucket, BucketConfig, CreateBucketBody, ListBucketsResponse } from "./buckets.ts";
import {
  Class,
  ClassOnCreate,
  ProducerPolicy,
  ProducerPolicyOnCreate,
  TimestampingMode,
  TimestampingModeOnCreate,
} from "./enums.ts";
import { ErrorBody } from "./errors.ts";
import {
  AppendAck,
  AppendInput,
  AppendRecord,
  CheckTailResponse,
  CloseInput,
  Header,
  HeaderPair,
  Position,
  ReadBatch,
  ReadHeader,
  ReadRecord,
} from "./records.ts";
import {
  CreateStreamBody,
  FenceBody,
  FenceResponse,
  GetStreamResponse,
  ListStreamsResponse,
  Stream,
  StreamReconfiguration,
  TrimBody,
} from "./streams.ts";
import { TokenRequest, TokenResponse } from "./tokens.ts";

export * from "./buckets.ts";
export * from "./enums.ts";
export * from "./errors.ts";
export * from "./params.ts";
export * from "./records.ts";
export * from "./streams.ts";
export * from "./tokens.ts";

/** The shared schemas by $id: TypeBox's Compile(context, schema) resolves references with it. */
export const schemaContext = {
  Position,
  Header,
  ReadHeader,
  HeaderPair,
  AppendRecord,
  AppendInput,
  CloseInput,
  AppendAck,
  ReadRecord,
  ReadBatch,
  CheckTailResponse,
  Class,
  ProducerPolicy,
  TimestampingMode,
  ClassOnCreate,
  ProducerPolicyOnCreate,
  TimestampingModeOnCreate,
  CreateStreamBody,
  StreamReconfiguration,
  Stream,
  GetStreamResponse,
  ListStreamsResponse,
  TrimBody,
  FenceBody,
  FenceResponse,
  CreateBucketBody,
  BucketConfig,
  Bucket,
  ListBucketsResponse,
  TokenRequest,
  TokenResponse,
  ErrorBody,
} satisfies Record<string, TSchema>;

/** The options every shared schema is built with (TypeBox's types do not carry them). */
export type SharedSchema = TSchema & { $id: string; description: string; examples: unknown[] };

/** For `for (const s of sharedSchemas) fastify.addSchema(s)`. */
export const sharedSchemas: readonly SharedSchema[] = Object.values(schemaContext).map(
  (s: TSchema) => s as SharedSchema,
);
