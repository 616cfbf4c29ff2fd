// One listener for every protocol the gateway speaks, as Fastify's server (its serverFactory).
// Without a certificate: HTTP/1.1, and cleartext HTTP/2 (h2c, prior knowledge) on the same port,
// told apart by the first bytes (a connection that opens with the HTTP/2 preface is h2c). With
// one: TLS whose ALPN offers h2 and http/1.1. The listener only picks; Node's own servers serve,
// each handed the socket: an http.Server (its headers and keep-alive timeouts and its clientError
// answers as before) and an http2 server (stream limit, GOAWAY on close).
import type * as http from "node:http";
import http2 from "node:http2";
import net from "node:net";
import tls from "node:tls";
import { errorBody } from "../errors/index.ts";
import { headerTooLarge, MAX_HEADER_BYTES } from "./client-error.ts";
import { acceptProxied } from "./proxy-accept.ts";
import type { TrustProxy } from "./trusted-proxies.ts";

// Not an ESM import, whose face of node:http loads Node's bundled undici (docs/development.md).
const nodeHttp = process.getBuiltinModule("node:http");

const PREFACE = Buffer.from("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n");

/** The methods Node's HTTP/1.1 parser takes; HTTP/2 takes any token. */
const METHODS = new Set(nodeHttp.METHODS);
const UNKNOWN_METHOD_BODY = JSON.stringify({
  code: "unimplemented",
  message: "the gateway serves no such method; see the OpenAPI document at /openapi.json",
  retryable: false,
});

/**
 * The header list an HTTP/2 client may send (SETTINGS_MAX_HEADER_LIST_SIZE, RFC 9113 6.5.2):
 * four times HTTP/1.1's limit, so a head over that limit but under this one is answered 431.
 */
const H2_MAX_HEADER_LIST = 4 * MAX_HEADER_BYTES;

/**
 * A request's head as its HTTP/1.1 form would count: the request line, `host` for :authority,
 * and one `cookie` line however many fields it came in (crumbs, RFC 9113 8.2.3).
 */
function headerBytes(raw: readonly string[]): number {
  let bytes = " HTTP/1.1\r\n".length;
  let cookies = 0;
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = raw[i] as string;
    const size = Buffer.byteLength(raw[i + 1] as string);
    if (name === ":method" || name === ":path") bytes += size + 1;
    else if (name === ":authority") bytes += "host: \r\n".length + size;
    else if (name === "cookie") bytes += size + (cookies++ === 0 ? "cookie: \r\n".length : 2);
    else if (!name.startsWith(":")) bytes += name.length + ": \r\n".length + size;
  }
  return bytes;
}

function answer(res: http2.Http2ServerResponse, status: number, body: string): void {
  res.writeHead(status, {
    "content-type": "application/json; charset=utf-8",
    "cache-control": "no-store",
  });
  res.end(body);
}

/** The client a PROXY header named, for the TLS socket made over that connection. */
const proxiedClient = new WeakMap<net.Socket, PropertyDescriptorMap>();

export interface ListenerSettings {
  /** PEM certificate chain and key: TLS with ALPN h2 and http/1.1; absent: cleartext. */
  tls?: { cert: Buffer; key: Buffer };
  /** HTTP/1.1 headers, the TLS handshake, and the first bytes that tell h2c from HTTP/1.1. */
  headersTimeoutMs: number;
  /** An idle HTTP/1.1 connection, and an idle HTTP/2 session, close after this. */
  keepAliveTimeoutMs: number;
  /**
   * The idle time HTTP/1.1 responses advertise (`Keep-Alive: timeout=`), seconds. A balancer may
   * pass the header on (HAProxy does), and clients trust it: it must stay below the idle timeout
   * of any balancer in front, which closes client connections it holds idle longer.
   */
  keepAliveHintS: number;
  /** Concurrent streams of one HTTP/2 connection (SETTINGS_MAX_CONCURRENT_STREAMS). */
  h2MaxStreams: number;
  /** The peers whose connections open with a PROXY header, before TLS if any (proxy-accept.ts). */
  proxyProtocol?: TrustProxy;
}

type Handler = (req: http.IncomingMessage, res: http.ServerResponse) => void;

/** The listener with what Fastify and the drain call on an http.Server. */
export type GatewayServer = net.Server & {
  closeAllConnections(): void;
  closeIdleConnections(): void;
};

export function gatewayServer(handler: Handler, settings: ListenerSettings): GatewayServer {
  // Node would advertise keepAliveTimeoutMs (72 s), longer than balancers hold idle client
  // connections: a client trusting it sends on a connection the balancer is closing. A
  // Keep-Alive header of the response's own stops Node from adding its one.
  const hint = `timeout=${settings.keepAliveHintS}`;
  const h1 = nodeHttp.createServer(
    {
      headersTimeout: settings.headersTimeoutMs,
      // Node checks the timeout on this clock (30 s by default), so it is what bounds it.
      connectionsCheckingInterval: Math.min(1_000, settings.headersTimeoutMs),
      keepAliveTimeout: settings.keepAliveTimeoutMs,
      // Sessions (SSE, NDJSON) are long requests; bodies have their own timeouts (body-guard).
      requestTimeout: 0,
    },
    (req, res) => {
      if (res.shouldKeepAlive) res.setHeader("keep-alive", hint);
      handler(req, res);
    },
  );
  const h2 = http2.createServer(
    {
      settings: {
        maxConcurrentStreams: settings.h2MaxStreams,
        // Said to the client: past it nghttp2 refuses the stream before any answer can be.
        maxHeaderListSize: H2_MAX_HEADER_LIST,
      },
      // As many fields as HTTP/1.1 takes (Node's maxHeadersCount), not HTTP/2's 128.
      maxHeaderListPairs: 2000,
    },
    (req: http2.Http2ServerRequest, res: http2.Http2ServerResponse) => {
      // A method HTTP/1.1's parser would have refused: Fastify's router has no answer for it
      // (a 500, and its route table in the log). RFC 9110's answer to an unknown method.
      if (!METHODS.has(req.method)) {
        answer(res, 501, UNKNOWN_METHOD_BODY);
        return;
      }
      // HTTP/1.1's limit on the request's head, for the same request over HTTP/2.
      if (headerBytes(req.rawHeaders) > MAX_HEADER_BYTES) {
        answer(res, 431, JSON.stringify(errorBody(headerTooLarge())));
        return;
      }
      (handler as unknown as (r: typeof req, s: typeof res) => void)(req, res);
    },
  );
  const sessions = new Set<http2.ServerHttp2Session>();
  h2.on("session", (session: http2.ServerHttp2Session) => {
    sessions.add(session);
    session.once("close", () => sessions.delete(session));
    session.setTimeout(settings.keepAliveTimeoutMs, () => session.close());
  });

  // With PROXY headers the TLS handshake starts after the header: the listener reads the header
  // off the plain connection (proxy-accept.ts), then hands the connection to a TLS server of
  // its own, which runs the handshake as if it had accepted it.
  const secure = settings.tls
    ? tls.createServer({
        cert: settings.tls.cert,
        key: settings.tls.key,
        ALPNProtocols: ["h2", "http/1.1"],
        handshakeTimeout: settings.headersTimeoutMs,
      })
    : undefined;
  const front: net.Server = secure && !settings.proxyProtocol ? secure : net.createServer();
  if (secure) {
    secure.on("secureConnection", (socket: tls.TLSSocket) => {
      // Node keeps the connection a TLS socket was made over as `_parent` (no public name).
      const plain = (socket as unknown as { _parent?: net.Socket })._parent;
      const client = plain && proxiedClient.get(plain);
      if (client) Object.defineProperties(socket, client);
      (socket.alpnProtocol === "h2" ? h2 : h1).emit("connection", socket);
    });
  }
  if (secure && settings.proxyProtocol) {
    const trusted = settings.proxyProtocol;
    front.on("connection", (socket: net.Socket) => {
      if (socket.writableEnded) return;
      const secured = (plain: net.Socket) => {
        proxiedClient.set(plain, {
          remoteAddress: { value: plain.remoteAddress },
          remotePort: { value: plain.remotePort },
          remoteFamily: { value: plain.remoteFamily },
        });
        secure.emit("connection", plain);
      };
      acceptProxied(socket, trusted, settings.headersTimeoutMs, secured, (s) => s.destroy());
    });
  } else if (!secure) {
    front.on("connection", (socket: net.Socket) => {
      // A connection refused by the connection limit is already answered (or, under TLS,
      // destroyed before its handshake).
      if (socket.writableEnded || socket.destroyed) return;
      const routed = (s: net.Socket) => route(s, h1, h2, settings.headersTimeoutMs, timedOut);
      if (settings.proxyProtocol) {
        acceptProxied(socket, settings.proxyProtocol, settings.headersTimeoutMs, routed, timedOut);
      } else routed(socket);
    });
  }
  // Every connection accepted, until it closes: one still being routed (nothing sent yet, a
  // PROXY header or a TLS handshake under way) belongs to neither h1 nor h2, and the cut at
  // the end of a shutdown's grace must reach it too, or the close waits for its timeout.
  const accepted = new Set<net.Socket>();
  front.on("connection", (socket: net.Socket) => {
    accepted.add(socket);
    socket.once("close", () => accepted.delete(socket));
  });
  // Fastify answers Node's refusals (clientErrorHandler) on the server it was given.
  h1.on("clientError", (err, socket) => front.emit("clientError", err, socket));
  // A connection still silent at the headers timeout is answered as HTTP/1.1 answers slow
  // headers (408), within the same bound rather than after a second one.
  const timedOut = (socket: net.Socket) => {
    const err = Object.assign(new Error("no request within the headers timeout"), {
      code: "ERR_HTTP_REQUEST_TIMEOUT",
    });
    front.emit("clientError", err, socket);
  };
  // The http.Server tracks its connections (headers timeout, closeAllConnections) once listening.
  front.on("listening", () => h1.emit("listening"));

  return Object.assign(front, {
    // A request a balancer sent just before it took the gateway out can still sit unread in a
    // socket, whose connection then looks idle: closing it would drop the request under the
    // balancer. So idle connections close, by either way in (Fastify closes them itself before
    // it closes the server), only after two turns of the event loop have read every socket:
    // such a request then starts, and is answered with `connection: close`.
    close(this: net.Server, done?: (err?: Error) => void) {
      net.Server.prototype.close.call(this, done);
      // Idle HTTP/1.1 connections close; HTTP/2 sessions get GOAWAY, their streams finish.
      afterPendingReads(() => {
        h1.close();
        h2.close();
      });
      return this;
    },
    closeIdleConnections() {
      afterPendingReads(() => h1.closeIdleConnections());
    },
    closeAllConnections() {
      h1.closeAllConnections();
      for (const session of sessions) session.destroy();
      for (const socket of accepted) socket.destroy();
    },
  });
}

/**
 * Hands a cleartext connection to h2 when its first bytes are the HTTP/2 preface, else to h1,
 * with the bytes read put back. A client that sends nothing, or part of the preface, and stops is
 * waited for up to the headers timeout, then answered 408.
 */
function route(
  socket: net.Socket,
  h1: http.Server,
  h2: http2.Http2Server,
  timeoutMs: number,
  timedOut: (socket: net.Socket) => void,
) {
  let seen = Buffer.alloc(0);
  let settled = false;
  const timer = setTimeout(() => {
    // Timers run before the event loop polls its sockets: after a stall the first bytes may
    // have arrived unread. The verdict waits for one poll.
    setImmediate(() => {
      if (settled) return;
      socket.off("readable", onReadable);
      timedOut(socket);
    });
  }, timeoutMs);
  const gone = () => {
    settled = true;
    clearTimeout(timer);
    socket.destroy();
  };
  const onReadable = () => {
    for (let chunk = socket.read(); chunk !== null; chunk = socket.read()) {
      seen = Buffer.concat([seen, chunk]);
    }
    const n = Math.min(seen.length, PREFACE.length);
    const prefix = seen.subarray(0, n).equals(PREFACE.subarray(0, n));
    if (prefix && n < PREFACE.length) return;
    hand(prefix ? h2 : h1);
  };
  const hand = (server: net.Server) => {
    settled = true;
    clearTimeout(timer);
    socket.off("readable", onReadable);
    socket.off("error", gone);
    socket.off("end", gone);
    if (seen.length > 0) socket.unshift(seen);
    server.emit("connection", socket);
  };
  socket.on("readable", onReadable);
  socket.on("error", gone);
  socket.on("end", gone);
}

/**
 * Runs `fn` after the event loop has polled its sockets twice: the first poll may be the one
 * that is running now, the second starts after this call.
 */
function afterPendingReads(fn: () => void): void {
  setImmediate(() => setImmediate(fn));
}
