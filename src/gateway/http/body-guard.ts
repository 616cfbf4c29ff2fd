// Every request body as it arrives (append sessions aside, which have their own rules):
// cut with a 408 when it stalls (no byte for `idleMs`) or takes longer than `totalMs` in all, so a
// client that sends headers and then nothing holds no slot for long; and for a route that admits
// appends (`config.admitsAppend`), its bytes taken from admission chunk by chunk. A body cut
// midway leaves the connection unusable: its error says `connection: close`. A body answered
// before it was read is settled by unread-body.ts.
import type { IncomingMessage } from "node:http";
import type { Http2ServerRequest } from "node:http2";
import { type Readable, Transform } from "node:stream";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import fp from "fastify-plugin";
import { closingConnection, compressedBody, HttpError, requestTimeout } from "../errors/index.ts";
import type { AppendAdmission, BodyTicket } from "./admission.ts";
import { clientKey } from "./client-key.ts";
import { closeAfterAnswer, settleUnreadBody } from "./unread-body.ts";

declare module "fastify" {
  interface FastifyContextConfig {
    /** The route's JSON bodies are appends: their bytes count against the append budget. */
    admitsAppend?: boolean;
    /**
     * Whether a request's body is a session (NDJSON, s2s) that reads the request itself, under
     * its own timeouts and admission: left alone here.
     */
    sessionBody?: (req: FastifyRequest) => boolean;
  }
}

export interface BodyTimeouts {
  /** The longest a body may go without a byte. */
  idleMs: number;
  /** The longest a whole body may take to arrive. */
  totalMs: number;
}

/** Each append body's admission ticket, for the parse to charge what it makes (json.ts). */
const tickets = new WeakMap<IncomingMessage | Http2ServerRequest, BodyTicket>();

/** The admission ticket of a request's append body, if its route admits appends. */
export const bodyTicket = (req: FastifyRequest): BodyTicket | undefined => tickets.get(req.raw);

export const bodyGuardPlugin = fp(
  async (app: FastifyInstance, opts: { admission: AppendAdmission; timeouts: BodyTimeouts }) => {
    const guarded = new WeakMap<IncomingMessage, Readable>();
    app.addHook("preParsing", async (req, reply, payload) => {
      if (!hasBody(req)) return payload;
      // Nothing decodes a request body: a compressed one would be read as its compressed bytes.
      const encoding = req.headers["content-encoding"];
      if (encoding !== undefined && encoding.trim().toLowerCase() !== "identity") {
        throw compressedBody(encoding);
      }
      if (req.routeOptions.config?.sessionBody?.(req)) return payload;
      let ticket: BodyTicket | undefined;
      if (req.routeOptions.config?.admitsAppend) {
        const length = req.headers["content-length"];
        const t = opts.admission.body(
          clientKey(req),
          length === undefined ? undefined : Number(length),
        );
        reply.raw.once("close", () => t.release());
        ticket = t;
        tickets.set(req.raw, t);
      }
      // A body that came whole with its head (most small requests) has nothing left to time: its
      // bytes are taken at once, and a refusal leaves the connection usable (Node drops the
      // unread body, which is all here).
      if (payload === req.raw && arrivedWhole(req.raw, req.headers["content-length"])) {
        ticket?.take(req.raw.readableLength);
        return payload;
      }
      const guard = guardBody(payload, opts.timeouts, ticket);
      guarded.set(req.raw, guard);
      return guard;
    });
    app.addHook("onSend", async (req, reply, payload) => {
      const guard = guarded.get(req.raw);
      if (guard) {
        if (!req.raw.complete) settleUnreadBody(req, reply, guard);
      } else {
        closeForUnguardedBody(req, reply);
      }
      return payload;
    });
  },
);

/**
 * A request answered with its body unguarded and not all in (refused before the guard, as for a
 * bad query, a Content-Encoding or a URL Fastify cannot route; a session's body refused): no
 * timeout bounds what is left of it, so its connection does not wait for it.
 */
export function closeForUnguardedBody(req: FastifyRequest, reply: FastifyReply): void {
  if (hasBody(req) && !arrivedWhole(req.raw, req.headers["content-length"])) {
    closeAfterAnswer(req, reply);
  }
}

/**
 * Every byte of the body is in the request's buffer, unread. (Node marks a request `complete` a
 * turn of the event loop after its last byte, so its route's hooks run before that.)
 */
function arrivedWhole(raw: Readable & { complete: boolean }, length: string | undefined): boolean {
  return raw.complete || (length !== undefined && raw.readableLength === Number(length));
}

function hasBody(req: FastifyRequest): boolean {
  const length = req.headers["content-length"];
  if (length === "0") return false;
  // HTTP/2 has no transfer-encoding, and a streamed body has no length: any request whose
  // HEADERS frame did not end its stream may send one.
  const h2 = (req.raw as unknown as Partial<Http2ServerRequest>).stream;
  if (h2) return !h2.endAfterHeaders;
  return req.headers["transfer-encoding"] !== undefined || length !== undefined;
}

export function guardBody(
  payload: Readable,
  timeouts: BodyTimeouts,
  ticket?: BodyTicket,
): Readable {
  let received = 0;
  let stopped = false;
  const guard = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      received += chunk.length;
      try {
        ticket?.take(chunk.length);
      } catch (err) {
        done(err instanceof HttpError ? closingConnection(err) : (err as Error));
        return;
      }
      if (!stopped) idle.refresh();
      done(null, chunk);
    },
    flush(done) {
      stop();
      done();
    },
  });
  const cut = (message: string) => {
    stop();
    guard.destroy(requestTimeout(`${message}; send the body at once, or retry`));
  };
  const idle = setTimeout(() => {
    // Timers run before the event loop polls its sockets: after a stall of the gateway itself,
    // bytes the client sent in time may be waiting unread. The verdict waits for one poll; a
    // byte read there refreshes (re-arms) this timer.
    const seen = received;
    setImmediate(() => {
      if (received === seen && !stopped)
        cut(`no byte of the request body came for ${timeouts.idleMs} ms`);
    });
  }, timeouts.idleMs);
  const total = setTimeout(
    () => cut(`the request body did not arrive within ${timeouts.totalMs} ms`),
    timeouts.totalMs,
  );
  const stop = () => {
    stopped = true;
    clearTimeout(idle);
    clearTimeout(total);
  };
  guard.once("close", stop);
  // The request may end otherwise: answered before its body was read (413), or the client gone.
  payload.once("close", stop);
  payload.once("error", (err) => guard.destroy(err));
  // Fastify listens while it reads the body; an error after it stopped has nobody to tell.
  guard.on("error", () => {});
  payload.pipe(guard);
  return guard;
}
