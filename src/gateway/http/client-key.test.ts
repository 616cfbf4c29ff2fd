import assert from "node:assert/strict";
import { test } from "node:test";
import type { FastifyRequest } from "fastify";
import { clientKey } from "./client-key.ts";

const req = (
  ip: string,
  authorization?: string,
  query: Record<string, string> = {},
  method = "GET",
) =>
  ({
    method,
    ip,
    query,
    headers: authorization === undefined ? {} : { authorization },
  }) as unknown as FastifyRequest;

test("a credential never passes for an address: each is its own client", () => {
  // A client sending another's address as its Authorization spends its own share, not theirs.
  assert.notEqual(clientKey(req("10.0.0.99", "10.0.0.7")), clientKey(req("10.0.0.7")));
});

test("the same credential is one client from any address; none, the address", () => {
  assert.equal(clientKey(req("10.0.0.1", "Bearer t")), clientKey(req("10.0.0.2", "Bearer t")));
  // Spelled with more spaces, as a star still takes it: the same client, not a fresh share.
  assert.equal(clientKey(req("10.0.0.1", "Bearer t")), clientKey(req("10.0.0.1", "bearer   t")));
  assert.equal(clientKey(req("10.0.0.1")), clientKey(req("10.0.0.1")));
  assert.notEqual(clientKey(req("10.0.0.1")), clientKey(req("10.0.0.2")));
});

test("a GET read's access_token is its credential, the same client as in Authorization", () => {
  const a = clientKey(req("10.0.0.1", undefined, { access_token: "aaa" }));
  assert.notEqual(a, clientKey(req("10.0.0.1", undefined, { access_token: "bbb" })));
  assert.equal(a, clientKey(req("10.0.0.9", "Bearer aaa")));
  assert.notEqual(a, clientKey(req("10.0.0.1")));
});

test("an access_token where no route takes one (an append) is no credential", () => {
  assert.equal(
    clientKey(req("10.0.0.1", undefined, { access_token: "made-up" }, "POST")),
    clientKey(req("10.0.0.1", undefined, {}, "POST")),
  );
});
