// Request and response types of each DataPlaneService method, derived from the generated
// service definition (one source: the proto).
import type { DataPlaneServiceDefinition } from "../../gen/nova/v1/DataPlaneService.ts";

type Definition = DataPlaneServiceDefinition;
/** DataPlaneService's method names (without the index signature grpc-js's base type adds). */
export type Method = keyof {
  [K in keyof Definition as K extends string ? (string extends K ? never : K) : never]: K;
};
export type StreamingMethod = "AppendSession" | "Subscribe";
export type UnaryMethod = Exclude<Method, StreamingMethod>;
export type RequestOf<M extends Method> = Parameters<Definition[M]["requestSerialize"]>[0];
export type ResponseOf<M extends Method> = ReturnType<Definition[M]["responseDeserialize"]>;
