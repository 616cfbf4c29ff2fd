import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import { parseEndpoint, targetOf } from "./s3-url.ts";

test("path-style: the bucket and the key's segments under the endpoint's path, encoded", () => {
  const ep = parseEndpoint("http://127.0.0.1:4568/", false);
  assert.deepEqual(targetOf(ep, "nova", "streams/a b/é?#"), {
    origin: "http://127.0.0.1:4568",
    host: "127.0.0.1:4568",
    path: "/nova/streams/a%20b/%C3%A9%3F%23",
  });
  assert.equal(targetOf(ep, "nova").path, "/nova");
  assert.equal(
    targetOf(parseEndpoint("https://minio.example:9000/s3/", true), "nova", "k").path,
    "/s3/nova/k",
  );
});

test("virtual-hosted when asked for, unless the endpoint is an address or the bucket no host label", () => {
  const named = parseEndpoint("http://s3.example:9000/base", false);
  assert.deepEqual(targetOf(named, "nova", "a/b"), {
    origin: "http://nova.s3.example:9000",
    host: "nova.s3.example:9000",
    path: "/base/a/b",
  });
  // Over plain HTTP dotted names are several labels, each of 3 to 63 characters as the SDK has
  // it; over TLS they would break the certificate.
  assert.equal(targetOf(named, "our.logs", "k").host, "our.logs.s3.example:9000");
  assert.equal(targetOf(named, "my.logs", "k").path, "/base/my.logs/k");
  const tls = parseEndpoint("https://s3.example", false);
  assert.equal(targetOf(tls, "our.logs", "k").path, "/our.logs/k");
  assert.equal(targetOf(tls, "nova", "k").origin, "https://nova.s3.example");
  for (const bucket of ["ab", "Nova", "-nova", "nova-", "a_b", "x".repeat(64)]) {
    assert.equal(targetOf(named, bucket, "k").host, "s3.example:9000", bucket);
  }
  for (const endpoint of ["http://10.0.0.7:9000", "http://[::1]:9000"]) {
    assert.equal(targetOf(parseEndpoint(endpoint, false), "nova", "k").path, "/nova/k", endpoint);
  }
});

test("a path-style path decodes back to its bucket and key, whatever the key", () => {
  const ep = parseEndpoint("http://127.0.0.1:4568", true);
  fc.assert(
    fc.property(fc.string({ unit: "binary", minLength: 1, maxLength: 60 }), (key) => {
      const { path } = targetOf(ep, "nova", key);
      assert.match(path, /^[A-Za-z0-9\-._~%/]*$/);
      const [, bucket, ...segments] = path.split("/");
      assert.equal(bucket, "nova");
      assert.equal(segments.map(decodeURIComponent).join("/"), key);
    }),
  );
});
