import assert from "node:assert/strict";
import { test } from "node:test";
import { trustedProxies } from "./trusted-proxies.ts";

test("no entries trust no peer", () => {
  assert.equal(trustedProxies([]), false);
});

test("addresses, CIDRs and names: exactly the peers they cover are trusted", () => {
  const trust = trustedProxies(["10.0.0.0/8", "192.168.1.7", "loopback", "fd00::/8"]);
  assert.ok(trust);
  for (const peer of ["10.1.2.3", "192.168.1.7", "127.0.0.1", "::1", "fd12::1"]) {
    assert.equal(trust(peer, 0), true, peer);
  }
  for (const peer of ["11.0.0.1", "192.168.1.8", "8.8.8.8", "fe80::1"]) {
    assert.equal(trust(peer, 0), false, peer);
  }
});

test("an entry that is neither an address nor a CIDR is refused, named", () => {
  assert.throws(() => trustedProxies(["10.0.0.0/8", "balancer.local"]), /balancer\.local/);
  assert.throws(() => trustedProxies(["10.0.0.0/33"]), /10\.0\.0\.0\/33/);
});
