// gRPC settings every nova connection shares: the gateway's fleet client, a star's peer clients
// and a star's server, so the message cap cannot drift apart between them. The keepalive here is
// the stars' own; the gateway's pings to them are its flags (--star-keepalive-ms).
import type { ChannelOptions } from "@grpc/grpc-js";

/** gRPC message cap, both ways: a 100 MiB batch with its framing (the default is 4 MiB). */
export const GRPC_MESSAGE_LIMIT = 128 * 1024 * 1024;

export const NOVA_CHANNEL_OPTIONS: ChannelOptions = {
  "grpc.max_receive_message_length": GRPC_MESSAGE_LIMIT,
  "grpc.max_send_message_length": GRPC_MESSAGE_LIMIT,
  // Notice a dead peer on an idle connection instead of on the next call's deadline.
  "grpc.keepalive_time_ms": 30_000,
  "grpc.keepalive_timeout_ms": 10_000,
  "grpc.keepalive_permit_without_calls": 1,
  // Nothing reads channelz; with it on, grpc-js stamps and counts every call three times over,
  // on both sides of the connection.
  "grpc.enable_channelz": 0,
};
