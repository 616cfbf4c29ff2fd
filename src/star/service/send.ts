// Writing to a server stream (Subscribe, for the leader and for a follower's catch-up): a write
// that the socket does not take at once waits for it to drain, so a slow reader holds at most
// one message. A follower's relay of the leader's call pauses that call instead (docs/fleet.md).
import { once } from "node:events";
import type { ServerWritableStream } from "@grpc/grpc-js";
import type { SubscribeRequest__Output } from "../../gen/nova/v1/SubscribeRequest.ts";
import type { SubscribeResponse } from "../../gen/nova/v1/SubscribeResponse.ts";

type Call = ServerWritableStream<SubscribeRequest__Output, SubscribeResponse>;

export async function send(
  call: Call,
  message: SubscribeResponse,
  signal: AbortSignal,
): Promise<void> {
  if (call.write(message)) return;
  await once(call, "drain", { signal }).catch(() => undefined);
}
