// Promise-returning calls on a real gRPC client, for tests.
import assert from "node:assert/strict";
import * as grpc from "@grpc/grpc-js";
import type { RequestOf, ResponseOf, UnaryMethod } from "../../src/contract/proto/index.ts";
import { GRPC_MESSAGE_LIMIT, nova } from "../../src/contract/proto/index.ts";
import type { DataPlaneServiceClient } from "../../src/gen/nova/v1/DataPlaneService.ts";
import type { HealthResponse__Output } from "../../src/gen/nova/v1/HealthResponse.ts";
import type { Record__Output } from "../../src/gen/nova/v1/Record.ts";
import type { SettleStarResponse__Output } from "../../src/gen/nova/v1/SettleStarResponse.ts";
import type { StarStatsResponse__Output } from "../../src/gen/nova/v1/StarStatsResponse.ts";
import type { SubscribeRequest } from "../../src/gen/nova/v1/SubscribeRequest.ts";
import type { SubscribeResponse__Output } from "../../src/gen/nova/v1/SubscribeResponse.ts";

export function dataPlaneClient(address: string): DataPlaneServiceClient {
  return new nova.DataPlaneService(address, grpc.credentials.createInsecure(), {
    "grpc.max_receive_message_length": GRPC_MESSAGE_LIMIT,
    "grpc.max_send_message_length": GRPC_MESSAGE_LIMIT,
  });
}

/** The error `p` rejects with; fails the test when it resolves. */
export async function refusal(p: Promise<unknown>): Promise<grpc.ServiceError> {
  try {
    await p;
  } catch (err) {
    return err as grpc.ServiceError;
  }
  assert.fail("expected the call to fail");
}

/** Calls a unary method and resolves with its response or rejects with its ServiceError. */
export function call<K extends UnaryMethod>(
  client: DataPlaneServiceClient,
  method: K,
  request: RequestOf<K>,
  metadata = new grpc.Metadata(),
): Promise<ResponseOf<K>> {
  return new Promise((resolve, reject) => {
    const fn = (
      (client as unknown as Record<string, unknown>)[method] as (...args: unknown[]) => unknown
    ).bind(client);
    fn(request, metadata, {}, (err: grpc.ServiceError | null, res: unknown) =>
      err ? reject(err) : resolve(res as ResponseOf<K>),
    );
  });
}

/** One admin-plane call to the star at `address`, on a channel of its own. */
function adminCall<T>(
  address: string,
  method: "SettleStar" | "StarStats" | "Health",
  metadata: grpc.Metadata,
): Promise<T> {
  const client = new nova.AdminPlaneService(address, grpc.credentials.createInsecure());
  return new Promise<T>((resolve, reject) => {
    const fn = (client as unknown as Record<string, (...args: unknown[]) => unknown>)[method];
    fn?.call(client, {}, metadata, (err: grpc.ServiceError | null, res?: unknown) =>
      err ? reject(err) : resolve(res as T),
    );
  }).finally(() => client.close());
}

/** SettleStar: everything the star acked so far is in chunk objects when it answers. */
export function settleStar(
  address: string,
  metadata = new grpc.Metadata(),
): Promise<SettleStarResponse__Output> {
  return adminCall(address, "SettleStar", metadata);
}

export function starStats(
  address: string,
  metadata = new grpc.Metadata(),
): Promise<StarStatsResponse__Output> {
  return adminCall(address, "StarStats", metadata);
}

export function health(address: string): Promise<HealthResponse__Output> {
  return adminCall(address, "Health", new grpc.Metadata());
}

/** Subscribes and collects records until `until` of them arrived; then cancels. */
export function subscribeUntil(
  c: DataPlaneServiceClient,
  request: SubscribeRequest,
  until: number,
): Promise<Record__Output[]> {
  return new Promise((resolve, reject) => {
    const got: Record__Output[] = [];
    const sub = c.Subscribe(request);
    sub.on("data", (m: SubscribeResponse__Output) => {
      got.push(...m.records);
      if (got.length >= until) {
        sub.cancel();
        resolve(got);
      }
    });
    sub.on("error", (err: grpc.ServiceError) => {
      if (err.code !== grpc.status.CANCELLED) reject(err);
    });
  });
}
