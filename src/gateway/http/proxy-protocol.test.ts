import assert from "node:assert/strict";
import { SocketAddress } from "node:net";
import { test } from "node:test";
import fc from "fast-check";
import { parseProxyHeader, V2_SIGNATURE } from "./proxy-protocol.ts";

// Headers as HAProxy writes them (its send-proxy and send-proxy-v2), for the tests only.
function v1(family: "TCP4" | "TCP6", source: string, port: number): Buffer {
  const destination = family === "TCP4" ? "10.0.0.1" : "::1";
  return Buffer.from(`PROXY ${family} ${source} ${destination} ${port} 8080\r\n`);
}

function v2(opts: {
  command?: number;
  family: number;
  address: Buffer;
  port: number;
  tlv?: Buffer;
}) {
  const destination = Buffer.alloc(opts.address.length);
  const ports = Buffer.alloc(4);
  ports.writeUInt16BE(opts.port, 0);
  ports.writeUInt16BE(8080, 2);
  const body = Buffer.concat([opts.address, destination, ports, opts.tlv ?? Buffer.alloc(0)]);
  const fixed = Buffer.from([0x20 | (opts.command ?? 1), (opts.family << 4) | 1, 0, 0]);
  fixed.writeUInt16BE(body.length, 2);
  return Buffer.concat([V2_SIGNATURE, fixed, body]);
}

const port = fc.integer({ min: 0, max: 65535 });
const rest = fc.uint8Array({ maxLength: 64 }).map((a) => Buffer.from(a));

/** Every strict prefix of a header is partial; the header with anything after it is read. */
function assertReads(header: Buffer, after: Buffer, source?: { address: string; port: number }) {
  for (let n = 0; n < header.length; n++) {
    assert.deepEqual(parseProxyHeader(header.subarray(0, n)), { kind: "partial" }, `${n} bytes`);
  }
  const expected = source
    ? { kind: "header", length: header.length, source }
    : { kind: "header", length: header.length };
  assert.deepEqual(parseProxyHeader(Buffer.concat([header, after])), expected);
}

test("property: v1 TCP4 and TCP6 headers give the client's address and port", () => {
  fc.assert(
    fc.property(fc.ipV4(), port, rest, (address, p, after) =>
      assertReads(v1("TCP4", address, p), after, { address, port: p }),
    ),
  );
  fc.assert(
    fc.property(fc.ipV6(), port, rest, (address, p, after) =>
      assertReads(v1("TCP6", address, p), after, { address, port: p }),
    ),
  );
});

test("property: v2 PROXY headers over IPv4 and IPv6, TLVs after them, give the client", () => {
  const tlv = fc.uint8Array({ maxLength: 40 }).map((a) => Buffer.from(a));
  fc.assert(
    fc.property(fc.uint8Array({ minLength: 4, maxLength: 4 }), port, tlv, rest, (a, p, t, after) =>
      assertReads(v2({ family: 1, address: Buffer.from(a), port: p, tlv: t }), after, {
        address: [...a].join("."),
        port: p,
      }),
    ),
  );
  fc.assert(
    fc.property(
      fc.uint8Array({ minLength: 16, maxLength: 16 }),
      port,
      tlv,
      rest,
      (a, p, t, after) => {
        const bytes = Buffer.from(a);
        const groups = Array.from({ length: 8 }, (_, i) => bytes.readUInt16BE(i * 2).toString(16));
        const address = new SocketAddress({ address: groups.join(":"), family: "ipv6" }).address;
        assertReads(v2({ family: 2, address: bytes, port: p, tlv: t }), after, {
          address,
          port: p,
        });
      },
    ),
  );
});

test("a balancer speaking for itself (v2 LOCAL, v1 UNKNOWN, v2 UNSPEC) names no client", () => {
  assertReads(v2({ command: 0, family: 1, address: Buffer.alloc(4), port: 1 }), Buffer.from("GET"));
  assertReads(Buffer.from("PROXY UNKNOWN\r\n"), Buffer.from("GET"));
  assertReads(Buffer.from("PROXY UNKNOWN ffff:f...f ffff:f...f 65535 65535\r\n"), Buffer.alloc(0));
  assertReads(v2({ family: 0, address: Buffer.alloc(0), port: 0 }), Buffer.alloc(0));
});

test("what a client opens with (HTTP/1.1, the h2 preface, TLS) is not a header", () => {
  for (const start of ["GET / HTTP/1.1\r\n", "POST /v1", "PUT", "PATCH", "PRI * HTTP/2.0", "P"]) {
    const parsed = parseProxyHeader(Buffer.from(start));
    assert.deepEqual(parsed, start === "P" ? { kind: "partial" } : { kind: "none" }, start);
  }
  assert.deepEqual(parseProxyHeader(Buffer.from([0x16, 0x03, 0x01])), { kind: "none" });
  assert.deepEqual(parseProxyHeader(Buffer.from("\r\n\r\nX")), { kind: "none" });
});

test("a malformed header is invalid, saying why", () => {
  const cases: [Buffer | string, RegExp][] = [
    [`PROXY TCP4 ${"1".repeat(120)}`, /no CRLF within 107 bytes/],
    ["PROXY TCP5 1.2.3.4 1.2.3.4 1 2\r\n", /TCP4, TCP6 or UNKNOWN/],
    ["PROXY TCP4 1.2.3.4 1.2.3.4 1\r\n", /four fields/],
    ["PROXY TCP4 ::1 1.2.3.4 1 2\r\n", /not TCP4 addresses/],
    ["PROXY TCP6 1.2.3.4 ::1 1 2\r\n", /not TCP6 addresses/],
    ["PROXY TCP4 1.2.3.4 1.2.3.4 65536 2\r\n", /up to 65535/],
    ["PROXY TCP4 1.2.3.4 1.2.3.4 080 2\r\n", /decimal numbers/],
    [Buffer.concat([V2_SIGNATURE, Buffer.from([0x11, 0x11, 0, 0])]), /version is 2/],
    [Buffer.concat([V2_SIGNATURE, Buffer.from([0x22, 0x11, 0, 0])]), /LOCAL or PROXY/],
    [Buffer.concat([V2_SIGNATURE, Buffer.from([0x21, 0x11, 0, 4, 1, 2, 3, 4])]), /12 bytes/],
    [Buffer.concat([V2_SIGNATURE, Buffer.from([0x21, 0x21, 0, 12]), Buffer.alloc(12)]), /36 bytes/],
  ];
  for (const [bytes, reason] of cases) {
    const parsed = parseProxyHeader(typeof bytes === "string" ? Buffer.from(bytes) : bytes);
    assert.equal(parsed.kind, "invalid", String(bytes));
    assert.match((parsed as { reason: string }).reason, reason);
  }
});
