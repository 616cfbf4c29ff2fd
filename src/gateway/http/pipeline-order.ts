// HTTP/1.1 pipelining, in order: Node reads every pipelined request at once and hands each to
// Fastify as it is parsed, so a request could be carried out while the one before it is still
// being answered, even when that answer closes the connection (`connection: close`: a body that
// did not parse, a timeout, draining), and then its own answer would be lost with the
// connection. RFC 9112 (9.6) forbids processing anything after a close; here each request waits
// for the answer before it, and one after a closing answer is never carried out.
import type { ServerResponse } from "node:http";
import type { Socket } from "node:net";
import type { FastifyInstance } from "fastify";
import fp from "fastify-plugin";

/** The response of the last request that began on each connection. */
const lastResponse = new WeakMap<Socket, ServerResponse>();

export const pipelineOrderPlugin = fp(async (app: FastifyInstance) => {
  app.addHook("onRequest", async (req, reply) => {
    // HTTP/2 streams of one connection are independent: only HTTP/1.1 pipelines.
    if (req.raw.httpVersionMajor !== 1) return;
    const socket = req.raw.socket;
    const before = lastResponse.get(socket);
    lastResponse.set(socket, reply.raw);
    if (before !== undefined && !before.writableFinished) {
      await new Promise<void>((resolve) => {
        const done = () => {
          before.off("finish", done);
          before.off("close", done);
          resolve();
        };
        before.once("finish", done);
        before.once("close", done);
      });
    }
    // A closing answer has Node end the connection as it finishes: whatever was read after it,
    // now or later, is not carried out.
    const cut = before !== undefined && !before.writableFinished;
    if (cut || socket.writableEnded || socket.destroyed) reply.hijack();
  });
});
