import assert from "node:assert/strict";
import { test } from "node:test";
import { hostName, isLoopbackName } from "./host-check.ts";

test("loopback names: localhost, *.localhost, 127.0.0.0/8, ::1 and its IPv4-mapped form", () => {
  for (const name of ["localhost", "LOCALHOST", "app.localhost", "127.0.0.1", "127.1.2.3"]) {
    assert.equal(isLoopbackName(name), true, name);
  }
  for (const name of ["[::1]", "::1", "[::ffff:127.0.0.1]", "[::ffff:7f00:1]", "[::ffff:7fff:1]"]) {
    assert.equal(isLoopbackName(name), true, name);
  }
  for (const name of ["0.0.0.0", "::", "10.0.0.1", "localhost.evil.example", "evil-localhost"]) {
    assert.equal(isLoopbackName(name), false, name);
  }
  for (const name of ["128.0.0.1", "[::2]", "", "127.0.0.1.evil.example"]) {
    assert.equal(isLoopbackName(name), false, name);
  }
});

test("a Host's name: the port dropped, an IPv6 address kept in its brackets", () => {
  assert.equal(hostName("Example.com:8080"), "example.com");
  assert.equal(hostName("example.com"), "example.com");
  assert.equal(hostName("[::1]:8080"), "[::1]");
  assert.equal(hostName("[::1]"), "[::1]");
  assert.equal(hostName("127.0.0.1:1"), "127.0.0.1");
  // As a browser would have sent them: normalised, a final dot dropped.
  assert.equal(hostName("localhost.:8080"), "localhost");
  assert.equal(hostName("127.1"), "127.0.0.1");
  assert.equal(hostName("[::ffff:127.0.0.1]:80"), "[::ffff:7f00:1]");
  assert.equal(isLoopbackName(hostName("[::ffff:127.0.0.1]:80")), true);
});
