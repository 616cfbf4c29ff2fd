import assert from "node:assert/strict";
import { test } from "node:test";
import { status } from "@grpc/grpc-js";
import type { StarContext } from "../context.ts";
import type { LeaseKeeper } from "./lease-keeper.ts";
import { Fleet } from "./members.ts";
import { requireLeader } from "./ownership.ts";

const MEMBERS = [
  { name: "a", address: "127.0.0.1:1" },
  { name: "b", address: "127.0.0.1:2" },
];

function context(lapsed: boolean | undefined): StarContext {
  const lease = lapsed === undefined ? undefined : ({ lapsed } as LeaseKeeper);
  return { id: "a", fleet: new Fleet("a", MEMBERS), lease } as unknown as StarContext;
}

/** A key led by `name` among MEMBERS. */
function keyLedBy(name: string): string {
  const fleet = new Fleet("a", MEMBERS);
  for (let i = 0; ; i++) if (fleet.leaderOf("b1", `k${i}`).name === name) return `k${i}`;
}

test("the leader passes while it holds its lease, or with no lease (a fleet of one)", () => {
  requireLeader(context(false), "b1", keyLedBy("a"));
  requireLeader(context(undefined), "b1", keyLedBy("a"));
});

test("another member's stream is NotOwner naming the leader", () => {
  assert.throws(
    () => requireLeader(context(false), "b1", keyLedBy("b")),
    (err: { code: number; message: string }) =>
      err.code === status.FAILED_PRECONDITION && /star b at 127\.0\.0\.1:2 does/.test(err.message),
  );
});

test("a leader whose lease lapsed by its own clock answers UNAVAILABLE, not from memory", () => {
  assert.throws(
    () => requireLeader(context(true), "b1", keyLedBy("a")),
    (err: { code: number; message: string }) =>
      err.code === status.UNAVAILABLE && /lease may have lapsed.*retry/.test(err.message),
  );
});
