import assert from "node:assert/strict";
import { test } from "node:test";
import { status } from "@grpc/grpc-js";
import { toServiceError } from "../errors.ts";
import { Peers } from "./peers.ts";

test("one client per member; after close a member is UNAVAILABLE, not an internal error", () => {
  const peers = new Peers();
  const member = { name: "m", address: "127.0.0.1:1" };
  assert.equal(peers.client(member), peers.client(member));
  peers.close();
  assert.throws(
    () => peers.client(member),
    (err: unknown) => toServiceError(err).code === status.UNAVAILABLE,
  );
});
