import assert from "node:assert/strict";
import { test } from "node:test";
import { hostPort, httpUrl } from "./addresses.ts";

test("HOST:PORT: a name, IPv4 or bracketed IPv6 host and a port from 1 to 65535", () => {
  for (const good of [
    "a:1",
    "star-1.internal:7070",
    "nova_star_1:7070",
    "10.0.0.1:80",
    "[::1]:65535",
  ]) {
    assert.equal(hostPort(good), undefined, good);
  }
  for (const bad of ["a", "a:0", "a:65536", ":80", "a b:80", "::1:80", "a:8o", "a:123456"]) {
    assert.equal(hostPort(bad), "is not HOST:PORT with a port from 1 to 65535", bad);
  }
});

test("an endpoint URL: absolute, http or https, with a host", () => {
  for (const good of ["http://s3:9000", "https://s3.example.com/prefix", "http://[::1]:9000"]) {
    assert.equal(httpUrl(good), undefined, good);
  }
  for (const bad of ["notaurl", "s3:9000", "ftp://x", "http://", "/path"]) {
    assert.equal(httpUrl(bad), "is not an http:// or https:// URL", bad);
  }
  for (const secret of ["http://user:pw@s3:9000", "https://key@s3.example.com"]) {
    assert.match(httpUrl(secret) ?? "", /^holds credentials .*their own flags$/, secret);
  }
});
