// An SSE response holds its HTTP/1.1 connection for as long as it lasts, and the connection
// closes with it (`connection: close`): no other request will be read from it. Node keeps the
// connection's request parser all the same, and a parser is 8 KiB of native memory, half of
// what Node's HTTP server holds for an idle connection (docs/subscriptions.md). So once such a
// response has taken over its connection, the parser goes back to Node's pool, as Node itself
// does when a connection is upgraded. This reaches into `_http_common` (Node's own parser pool,
// the same call its upgrade path makes); `parser-release.test.ts` checks it on the Node we pin.
import type { IncomingMessage } from "node:http";
import { createRequire } from "node:module";
import type { Socket } from "node:net";

type FreeParser = (parser: unknown, req: IncomingMessage, socket: Socket) => void;

const { freeParser } = createRequire(import.meta.url)("_http_common") as {
  freeParser: FreeParser;
};

/** The listeners Node's HTTP server puts on a connection to feed its parser. */
const PARSER_FEEDS = new Set(["bound socketOnData", "bound socketOnEnd"]);

/**
 * Gives the parser of `req`'s connection back once the request is read whole and its response
 * (sent with `connection: close`) owns the connection to its end. A client that half-closes then
 * ends the response, as it would through the parser. HTTP/2 streams have no parser of their
 * own: nothing to do. True when it released one.
 */
export function releaseParser(req: IncomingMessage): boolean {
  const socket = req.socket as Socket & { parser?: unknown };
  const parser = socket.parser;
  if (!parser || !req.complete || req.httpVersionMajor !== 1) return false;
  for (const event of ["data", "end"] as const) {
    for (const listener of socket.listeners(event)) {
      if (PARSER_FEEDS.has(listener.name)) socket.off(event, listener as () => void);
    }
  }
  freeParser(parser, req, socket);
  // "end" comes once; `on` keeps no once-wrapper for the connection's life, and one function
  // for every connection (an emitter calls it on itself) no closure.
  socket.on("end", destroyItself);
  // Bytes the client still sends are dropped, so that its end is seen.
  socket.resume();
  return true;
}

function destroyItself(this: Socket): void {
  this.destroy();
}
