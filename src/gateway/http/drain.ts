// Shutting down the way load balancers expect. On SIGTERM /readyz fails at once and the gateway
// goes on serving, new requests and connections included, for the drain delay: long enough for
// the balancer's health checks to take it out, so nothing the balancer still sends is refused.
// Then it closes: every response carries `connection: close` (a request that arrives on a kept-
// alive connection is answered, never dropped under the client), long-lived sessions end (SSE
// with a jittered `retry:`, NDJSON after their in-flight batches), the listener closes, and
// requests in flight get the grace period to finish.
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import fp from "fastify-plugin";
import { closeAfterAnswer } from "./unread-body.ts";

type DrainPhase = "serving" | "draining" | "closing";

export class Drain {
  #phase: DrainPhase = "serving";
  #hurried = false;
  #wake: (() => void) | undefined;

  /** /readyz fails from the draining phase on. */
  get draining(): boolean {
    return this.#phase !== "serving";
  }

  /** Responses ask the client to close the connection once the gateway is closing. */
  get closing(): boolean {
    return this.#phase === "closing";
  }

  /**
   * The whole shutdown: drains for `delayMs` (cut short by `hurry`), then closes the app, giving
   * requests and sessions in flight `graceMs` before their connections are cut.
   */
  async shutDown(app: FastifyInstance, delayMs: number, graceMs: number): Promise<void> {
    if (this.#phase !== "serving") return;
    this.#phase = "draining";
    if (!this.#hurried) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, delayMs);
        this.#wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
    this.#phase = "closing";
    const cut = setTimeout(() => app.server.closeAllConnections(), graceMs);
    try {
      await app.close();
    } finally {
      clearTimeout(cut);
    }
  }

  /** Skips the drain delay, or what is left of it (Ctrl-C, or a second signal). */
  hurry(): void {
    this.#hurried = true;
    this.#wake?.();
  }
}

/**
 * Adds `connection: close` to every HTTP/1.1 response once the gateway is closing: at the
 * request's start for sessions that take the response over, and before sending for everything
 * else. HTTP/2 has no such header: closing the listener sends its sessions GOAWAY.
 */
export const drainPlugin = fp(async (app: FastifyInstance, opts: { drain: Drain }) => {
  const closeAfter = async (req: FastifyRequest, reply: FastifyReply) => {
    if (opts.drain.closing) closeAfterAnswer(req, reply);
  };
  app.addHook("onRequest", closeAfter);
  app.addHook("onSend", closeAfter);
});
