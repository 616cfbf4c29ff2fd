// The PROXY protocol header (HAProxy's `send-proxy` and `send-proxy-v2`, AWS NLB) that a balancer
// sends before anything else on a connection, naming the client it came from: version 1 (a text
// line) and version 2 (binary). Pure: no I/O; proxy-accept.ts reads it off sockets.
import { isIPv4, isIPv6, SocketAddress } from "node:net";

/** What the first bytes of a connection are, as far as they go. */
export type ProxyHeader =
  /** A header could still start this way: more bytes are needed. */
  | { kind: "partial" }
  /** Not a PROXY header: the connection starts with something else. */
  | { kind: "none" }
  | { kind: "invalid"; reason: string }
  /**
   * A header of `length` bytes. `source` is the client; absent when the balancer speaks for
   * itself (v2 LOCAL, health checks) or does not know (v1 UNKNOWN, v2 UNSPEC or a UNIX socket).
   */
  | { kind: "header"; length: number; source?: { address: string; port: number } };

const V1_PREFIX = Buffer.from("PROXY ");
/** The longest v1 line, CRLF included (the protocol's own bound). */
const V1_MAX = 107;
export const V2_SIGNATURE = Buffer.from([
  0x0d, 0x0a, 0x0d, 0x0a, 0x00, 0x0d, 0x0a, 0x51, 0x55, 0x49, 0x54, 0x0a,
]);
const V2_FIXED = 16;

export function parseProxyHeader(bytes: Buffer): ProxyHeader {
  if (startsLike(bytes, V1_PREFIX)) {
    return bytes.length < V1_PREFIX.length ? { kind: "partial" } : parseV1(bytes);
  }
  if (startsLike(bytes, V2_SIGNATURE)) {
    return bytes.length < V2_FIXED ? { kind: "partial" } : parseV2(bytes);
  }
  return { kind: "none" };
}

/** Whether `bytes` and `prefix` agree as far as both go. */
function startsLike(bytes: Buffer, prefix: Buffer): boolean {
  const n = Math.min(bytes.length, prefix.length);
  return bytes.subarray(0, n).equals(prefix.subarray(0, n));
}

function parseV1(bytes: Buffer): ProxyHeader {
  const end = bytes.indexOf("\r\n");
  if (end < 0 || end + 2 > V1_MAX) {
    return bytes.length >= V1_MAX
      ? { kind: "invalid", reason: `a v1 header has no CRLF within ${V1_MAX} bytes` }
      : { kind: "partial" };
  }
  const length = end + 2;
  const fields = bytes.toString("latin1", V1_PREFIX.length, end).split(" ");
  if (fields[0] === "UNKNOWN") return { kind: "header", length };
  const [family, source, , sourcePort, destinationPort] = fields;
  const valid = family === "TCP4" ? isIPv4 : family === "TCP6" ? isIPv6 : undefined;
  if (!valid || fields.length !== 5) {
    return { kind: "invalid", reason: `a v1 header reads TCP4, TCP6 or UNKNOWN and four fields` };
  }
  if (!valid(source as string) || !valid(fields[2] as string)) {
    return { kind: "invalid", reason: `a v1 header's addresses are not ${family} addresses` };
  }
  const port = v1Port(sourcePort as string);
  if (port === undefined || v1Port(destinationPort as string) === undefined) {
    return { kind: "invalid", reason: "a v1 header's ports are decimal numbers up to 65535" };
  }
  return { kind: "header", length, source: { address: source as string, port } };
}

function v1Port(text: string): number | undefined {
  if (!/^(0|[1-9][0-9]{0,4})$/.test(text)) return undefined;
  const port = Number(text);
  return port <= 65535 ? port : undefined;
}

function parseV2(bytes: Buffer): ProxyHeader {
  const versionCommand = bytes[12] as number;
  if (versionCommand >> 4 !== 2) return { kind: "invalid", reason: "a v2 header's version is 2" };
  const command = versionCommand & 0x0f;
  if (command > 1) return { kind: "invalid", reason: "a v2 header's command is LOCAL or PROXY" };
  const length = V2_FIXED + bytes.readUInt16BE(14);
  if (bytes.length < length) return { kind: "partial" };
  if (command === 0) return { kind: "header", length };
  const family = (bytes[13] as number) >> 4;
  const body = bytes.subarray(V2_FIXED, length);
  if (family === 1) {
    if (body.length < 12) return { kind: "invalid", reason: "a v2 IPv4 header holds 12 bytes" };
    const address = [...body.subarray(0, 4)].join(".");
    return { kind: "header", length, source: { address, port: body.readUInt16BE(8) } };
  }
  if (family === 2) {
    if (body.length < 36) return { kind: "invalid", reason: "a v2 IPv6 header holds 36 bytes" };
    const groups = Array.from({ length: 8 }, (_, i) => body.readUInt16BE(i * 2).toString(16));
    // Written the canonical way (RFC 5952), as sockets report addresses.
    const { address } = new SocketAddress({ address: groups.join(":"), family: "ipv6" });
    return { kind: "header", length, source: { address, port: body.readUInt16BE(32) } };
  }
  return { kind: "header", length };
}
