import assert from "node:assert/strict";
import { test } from "node:test";
import type { FastifyRequest } from "fastify";
import { clientKey } from "./client-key.ts";

const req = (url: string, ip: string, authorization?: string) =>
  ({ url, ip, headers: authorization === undefined ? {} : { authorization } }) as FastifyRequest;

test("a credential never passes for an address: each is its own client", () => {
  // A client sending another's address as its Authorization spends its own share, not theirs.
  assert.notEqual(
    clientKey(req("/v1/x", "10.0.0.99", "10.0.0.7")),
    clientKey(req("/v1/x", "10.0.0.7")),
  );
});

test("the same credential is one client from any address; none, the address", () => {
  assert.equal(
    clientKey(req("/v1/x", "10.0.0.1", "Bearer t")),
    clientKey(req("/v1/x", "10.0.0.2", "Bearer t")),
  );
  assert.equal(clientKey(req("/v1/x", "10.0.0.1")), clientKey(req("/v1/y", "10.0.0.1")));
  assert.notEqual(clientKey(req("/v1/x", "10.0.0.1")), clientKey(req("/v1/x", "10.0.0.2")));
});

test("an access_token is a credential: clients behind one address are told apart by it", () => {
  const a = clientKey(req("/v1/x?seq_num=0&access_token=aaa", "10.0.0.1"));
  const b = clientKey(req("/v1/x?access_token=bbb&seq_num=0", "10.0.0.1"));
  assert.notEqual(a, b);
  assert.equal(a, clientKey(req("/v1/y?access_token=aaa", "10.0.0.9")));
  assert.notEqual(a, clientKey(req("/v1/x?seq_num=0", "10.0.0.1")));
});
