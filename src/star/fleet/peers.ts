// gRPC clients for the other members of the fleet, one channel per member, created on first
// use and closed with the star. The fleet is fixed, so this pool is bounded by its size.
import * as grpc from "@grpc/grpc-js";
import { NOVA_CHANNEL_OPTIONS, nova } from "../../contract/proto/index.ts";
import type { DataPlaneServiceClient } from "../../gen/nova/v1/DataPlaneService.ts";
import { unavailable } from "../errors.ts";
import type { Member } from "./members.ts";

const CHANNEL_OPTIONS: grpc.ChannelOptions = {
  ...NOVA_CHANNEL_OPTIONS,
  // A restarted member must be dialed again within seconds, not after the default 120 s backoff.
  "grpc.initial_reconnect_backoff_ms": 200,
  "grpc.max_reconnect_backoff_ms": 2_000,
};

export class Peers {
  readonly #clients = new Map<string, DataPlaneServiceClient>();
  #closed = false;

  client(member: Member): DataPlaneServiceClient {
    // UNAVAILABLE, like every other refusal of a star going away: the caller retries elsewhere.
    if (this.#closed) throw unavailable("the star is shutting down; reconnect elsewhere");
    let client = this.#clients.get(member.address);
    if (!client) {
      client = new nova.DataPlaneService(
        member.address,
        grpc.credentials.createInsecure(),
        CHANNEL_OPTIONS,
      );
      this.#clients.set(member.address, client);
    }
    return client;
  }

  close(): void {
    this.#closed = true;
    for (const client of this.#clients.values()) client.close();
    this.#clients.clear();
  }
}
