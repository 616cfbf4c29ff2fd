// At most `max` client connections at once. The one past it gets a 503 in the contract's body and
// is closed, where Node's own `server.maxConnections` would drop it without a word; each
// connection costs a socket, its buffers and a file descriptor, so their number is bounded.
// With TLS the refused connection is closed before its handshake: nothing can be said on it
// that the client would read without paying for one.
import type { Server, Socket } from "node:net";

/** `tls`: the connections speak TLS (the front server may be a plain one, for the PROXY header). */
export function limitConnections(server: Server, max: number, tls: boolean): void {
  let open = 0;
  // Before the HTTP server's own listener, so a refused socket is answered and gone first.
  server.prependListener("connection", (socket: Socket) => {
    if (open >= max && tls) {
      socket.destroy();
      return;
    }
    if (open >= max) {
      const body = JSON.stringify({
        code: "unavailable",
        message: `this gateway holds its ${max} connections (--max-connections); retry, or use another gateway`,
        retryable: true,
      });
      socket.on("error", () => {});
      socket.end(
        `HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/json; charset=utf-8\r\n` +
          `content-length: ${Buffer.byteLength(body)}\r\nretry-after: 1\r\nconnection: close\r\n\r\n${body}`,
        () => socket.destroy(),
      );
      return;
    }
    open++;
    // "close" comes once; `on` keeps no once-wrapper for the connection's life.
    socket.on("close", () => open--);
  });
}
