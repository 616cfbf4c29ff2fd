import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import { forwardedFor } from "./forwarded-header.ts";

test("the for= node of each element, in order, across fields", () => {
  const cases: [string | string[] | undefined, string[]][] = [
    [undefined, []],
    ["for=192.0.2.60;proto=http;by=203.0.113.43", ["192.0.2.60"]],
    ['For="[2001:db8:cafe::17]:4711"', ["2001:db8:cafe::17"]],
    ['for="192.0.2.43:47011"', ["192.0.2.43"]],
    ["for=192.0.2.43, for=198.51.100.17", ["192.0.2.43", "198.51.100.17"]],
    [
      ["for=192.0.2.43", "for=198.51.100.17;by=x"],
      ["192.0.2.43", "198.51.100.17"],
    ],
    ["for=unknown, for=_hidden", ["unknown", "_hidden"]],
    ['proto=https;host="a,b";for=10.0.0.1', ["10.0.0.1"]],
    // An element without for= names nobody; the others still count.
    ["by=10.0.0.9, for=10.0.0.2", ["10.0.0.2"]],
    // Garbage names nobody: a quote left open, a value that is not a token.
    ['for="10.0.0.1', []],
    // A quote the client left open does not hide what its proxies appended after it.
    ['for="x, for=198.51.100.7', ["198.51.100.7"]],
    ['for="x, for="[2001:db8::1]:80", for=10.0.0.3', ["2001:db8::1", "10.0.0.3"]],
    ["for=10.0.0.1 10.0.0.2", []],
    ["for=", []],
  ];
  for (const [fields, nodes] of cases) {
    assert.deepEqual(forwardedFor(fields), nodes, JSON.stringify(fields));
  }
});

test("property: addresses written as a proxy writes them are read back exactly, in order", () => {
  const node = fc.oneof(
    fc.ipV4().map((ip) => ({ ip, text: ip })),
    fc.tuple(fc.ipV4(), fc.integer({ min: 1, max: 65535 })).map(([ip, port]) => ({
      ip,
      text: `"${ip}:${port}"`,
    })),
    fc.tuple(fc.ipV6(), fc.option(fc.integer({ min: 1, max: 65535 }))).map(([ip, port]) => ({
      ip,
      text: `"[${ip}]${port === null ? "" : `:${port}`}"`,
    })),
  );
  const extra = fc.constantFrom("", ";proto=https", ";by=_lb1", ';host="example.com"');
  fc.assert(
    fc.property(fc.array(fc.tuple(node, extra), { minLength: 1, maxLength: 6 }), (hops) => {
      const header = hops.map(([n, e]) => `for=${n.text}${e}`).join(", ");
      assert.deepEqual(
        forwardedFor(header),
        hops.map(([n]) => n.ip),
      );
    }),
  );
});

test("property: whatever a client sends first, the elements proxies append are read back at the end", () => {
  const hop = fc.oneof(
    fc.ipV4().map((ip) => ({ ip, text: ip })),
    fc.ipV6().map((ip) => ({ ip, text: `"[${ip}]"` })),
  );
  fc.assert(
    fc.property(
      fc.string({ unit: fc.constantFrom(...'for="\\,; x1.:[]'), maxLength: 30 }),
      fc.array(hop, { minLength: 1, maxLength: 4 }),
      (client, hops) => {
        const header = `${client}, ${hops.map((h) => `for=${h.text}`).join(", ")}`;
        assert.deepEqual(
          forwardedFor(header).slice(-hops.length),
          hops.map((h) => h.ip),
        );
      },
    ),
    { numRuns: 2000 },
  );
});

test("property: any header is read without throwing, and names only what it says", () => {
  fc.assert(
    fc.property(fc.string({ maxLength: 80 }), (header) => {
      for (const node of forwardedFor(header)) assert.ok(header.includes(node.replace(/\\/g, "")));
    }),
  );
});
