// --proxy-protocol: a connection from a trusted proxy (--trust-proxy) opens with a PROXY header
// (proxy-protocol.ts) naming the client, which then is the connection's remote address for
// everything above (Fastify's request.ip: logs, admission, session shares); one naming none
// makes it `unknown`, which shares one client's shares. A trusted peer
// without a header, or any other peer with one, is refused: the connection is closed unanswered,
// so a client can neither skip the header behind the balancer nor forge one around it.
import net from "node:net";
import { parseProxyHeader } from "./proxy-protocol.ts";
import type { TrustProxy } from "./trusted-proxies.ts";

/** The remote address of a connection whose PROXY header names no client. */
const UNKNOWN_CLIENT = "unknown";

/**
 * Reads the PROXY header, if any, off `socket` and hands it on with the bytes after it put
 * back; a peer that sends too little within `timeoutMs` goes to `timedOut`.
 */
export function acceptProxied(
  socket: net.Socket,
  trusted: TrustProxy,
  timeoutMs: number,
  next: (socket: net.Socket) => void,
  timedOut: (socket: net.Socket) => void,
): void {
  const fromProxy = trusted(socket.remoteAddress ?? "", 0);
  let seen = Buffer.alloc(0);
  let settled = false;
  const timer = setTimeout(() => {
    // Timers run before the event loop polls its sockets: the verdict waits for one poll.
    setImmediate(() => {
      if (settled) return;
      stop();
      timedOut(socket);
    });
  }, timeoutMs);
  const stop = () => {
    settled = true;
    clearTimeout(timer);
    socket.off("readable", onReadable);
    socket.off("error", gone);
    socket.off("end", gone);
  };
  const gone = () => {
    stop();
    socket.destroy();
  };
  const onReadable = () => {
    for (let chunk = socket.read(); chunk !== null; chunk = socket.read()) {
      seen = Buffer.concat([seen, chunk]);
    }
    const header = parseProxyHeader(seen);
    if (header.kind === "partial") return;
    if (fromProxy !== (header.kind === "header")) {
      gone();
      return;
    }
    stop();
    let rest = seen;
    if (header.kind === "header") {
      rest = seen.subarray(header.length);
      // A header naming no client (v1 UNKNOWN; v2 LOCAL, a balancer's health check, or a UNIX
      // source) leaves the client unknown: not the balancer's trusted address, from which the
      // client's own X-Forwarded-For (passed through by a balancer in mode tcp) would be believed.
      const client = header.source ?? { address: UNKNOWN_CLIENT, port: 0 };
      Object.defineProperties(socket, {
        remoteAddress: { value: client.address },
        remotePort: { value: client.port },
        remoteFamily: {
          value: header.source && (net.isIPv6(client.address) ? "IPv6" : "IPv4"),
        },
      });
    }
    if (rest.length > 0) socket.unshift(rest);
    next(socket);
  };
  socket.on("readable", onReadable);
  socket.on("error", gone);
  socket.on("end", gone);
}
