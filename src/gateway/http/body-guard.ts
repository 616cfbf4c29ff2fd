// An append body as it arrives: its bytes are taken from admission chunk by chunk, and it is cut
// with a 408 when it stalls (no byte for `idleMs`) or takes longer than `totalMs` in all, so a
// client that sends headers and then nothing holds neither budget nor a slot for long. A body
// cut midway leaves the connection unusable: its error says `connection: close`.
import { type Readable, Transform } from "node:stream";
import { closingConnection, HttpError, requestTimeout } from "../errors/index.ts";
import type { BodyTicket } from "./admission.ts";

export interface BodyTimeouts {
  /** The longest a body may go without a byte. */
  idleMs: number;
  /** The longest a whole body may take to arrive. */
  totalMs: number;
}

export const DEFAULT_BODY_TIMEOUTS: BodyTimeouts = { idleMs: 10_000, totalMs: 60_000 };

export function guardBody(payload: Readable, ticket: BodyTicket, timeouts: BodyTimeouts): Readable {
  const guard = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      try {
        ticket.take(chunk.length);
      } catch (err) {
        done(err instanceof HttpError ? closingConnection(err) : (err as Error));
        return;
      }
      idle.refresh();
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
  const idle = setTimeout(
    () => cut(`no byte of the request body came for ${timeouts.idleMs} ms`),
    timeouts.idleMs,
  );
  const total = setTimeout(
    () => cut(`the request body did not arrive within ${timeouts.totalMs} ms`),
    timeouts.totalMs,
  );
  const stop = () => {
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
