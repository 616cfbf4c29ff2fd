import assert from "node:assert/strict";
import { test } from "node:test";
import { status } from "@grpc/grpc-js";
import type { ReadRequest__Output } from "../../gen/nova/v1/ReadRequest.ts";
import type { StarContext } from "../context.ts";
import { newBucket, newStream } from "../lifecycle/config.ts";
import { StreamUses } from "../lifecycle/expiry.ts";
import { read } from "./data-verbs.ts";

const bucket = newBucket("b-1", null, "", 0);
const stream = newStream(bucket, "k", null, "", "s-1", 1_000);

/** A star that leads the stream, its lease lapsed or not; the logs it opened. */
function star(lapsed: boolean) {
  const self = { name: "s1", address: "127.0.0.1:1" };
  const opened: string[] = [];
  const ctx = {
    id: "s1",
    fleet: { self, leaderOf: () => self, leads: () => true },
    lease: { lapsed },
    catalog: { getBucket: async () => bucket, getStream: async () => stream },
    uses: new StreamUses(0),
    now: () => 2_000,
    limits: { readPageRecords: 10, readPageBytes: 1 << 20 },
    registry: {
      hold: async () => {
        opened.push(stream.stream_id);
        const log = {
          tail: { seqNum: 0n, timestampMs: 0n },
          sealed: false,
          read: async () => [],
        };
        return { log, release: () => {} };
      },
    },
  } as unknown as StarContext;
  return { ctx, opened };
}

const request = { bucket: "b-1", key: "k", start: "seq_num", seq_num: "0" } as ReadRequest__Output;

test("a leader reads from its log while it holds its lease", async () => {
  const { ctx, opened } = star(false);
  const page = await read(ctx, request);
  assert.deepEqual(page.records, []);
  assert.deepEqual(opened, ["s-1"]);
});

test("a leader whose lease may have lapsed reads nothing from memory: UNAVAILABLE", async () => {
  const { ctx, opened } = star(true);
  await assert.rejects(read(ctx, request), (err: { code: number; message: string }) => {
    return err.code === status.UNAVAILABLE && /lease may have lapsed.*retry/.test(err.message);
  });
  assert.deepEqual(opened, [], "its log, which another member's trim may have passed by");
});
