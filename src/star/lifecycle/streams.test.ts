import assert from "node:assert/strict";
import { test } from "node:test";
import type { Stream__Output } from "../../gen/nova/v1/Stream.ts";
import type { StarContext } from "../context.ts";
import { StarError } from "../errors.ts";
import { newBucket, newStream } from "./config.ts";
import { StreamUses } from "./expiry.ts";
import { resolveLedDescriptor, withLedLog } from "./streams.ts";

const bucket = newBucket("b-1", null, "", 0);
const stream = newStream(
  bucket,
  "k",
  {
    class: "CLASS_UNSPECIFIED",
    producer_policy: "PRODUCER_POLICY_UNSPECIFIED",
    timestamping_mode: "TIMESTAMPING_MODE_UNSPECIFIED",
    content_type: "",
    expire_idle_ms: "0",
    expires_at_unix_ms: "0",
    fork_origin: "",
  },
  "",
  "s-1",
  1_000,
);

/**
 * A star leading the stream until `moved` is called, whose descriptor read waits for `read`;
 * the streams it opened.
 */
function star() {
  const self = { name: "s1", address: "127.0.0.1:1" };
  const other = { name: "s2", address: "127.0.0.1:2" };
  let leader = self;
  let release: (s: Stream__Output) => void = () => {};
  const descriptor = new Promise<Stream__Output>((resolve) => {
    release = resolve;
  });
  const opened: string[] = [];
  const ctx = {
    id: "s1",
    fleet: {
      self,
      leaderOf: () => leader,
      leads: () => leader === self,
    },
    lease: undefined,
    catalog: { getBucket: async () => bucket, getStream: () => descriptor },
    uses: new StreamUses(0),
    now: () => 2_000,
    registry: {
      hold: async (s: Stream__Output) => {
        opened.push(s.stream_id);
        return { log: {}, release: () => {} };
      },
    },
  } as unknown as StarContext;
  return { ctx, opened, moved: () => (leader = other), read: () => release(stream) };
}

test("a stream led when the call came is opened", async () => {
  const s = star();
  const pending = resolveLedDescriptor(s.ctx, "b-1", "k").then((d) =>
    withLedLog(s.ctx, d, async () => {}),
  );
  s.read();
  await pending;
  assert.deepEqual(s.opened, ["s-1"]);
});

test("leadership that moved while the descriptor was read opens nothing: NotOwner", async () => {
  const s = star();
  const pending = resolveLedDescriptor(s.ctx, "b-1", "k").then((d) =>
    withLedLog(s.ctx, d, async () => {}),
  );
  // A hand-back: the view changed, and the stream's log was closed here.
  s.moved();
  s.read();
  await assert.rejects(pending, (err: unknown) => err instanceof StarError);
  assert.deepEqual(s.opened, [], "a log the next leader would never replay");
});
