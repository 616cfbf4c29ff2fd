// A query whose percent-escapes do not spell UTF-8 (`?prefix=%FF`) is refused with 400
// bad_query naming the parameter: the query parser keeps such a value as its raw text, so `%FF`
// would be read as those three characters, not what the client meant.
import type { FastifyInstance } from "fastify";
import fp from "fastify-plugin";
import { badQuery } from "../errors/index.ts";

export const queryEncodingPlugin = fp(async (app: FastifyInstance) => {
  // Not async: on every request, no promise for the common query with nothing to check.
  app.addHook("onRequest", (req, _reply, done) => {
    const at = req.url.indexOf("?");
    if (at < 0 || req.url.indexOf("%", at) < 0) return done();
    try {
      for (const part of req.url.slice(at + 1).split("&")) {
        if (part.includes("%")) checkEscapes(part);
      }
    } catch (err) {
      return done(err as Error);
    }
    done();
  });
});

function checkEscapes(part: string): void {
  try {
    decodeURIComponent(part);
  } catch {
    const name = part.split("=", 1)[0] ?? "";
    let shown = name;
    try {
      shown = decodeURIComponent(name);
    } catch {
      // The name itself is what is broken: say it as sent.
    }
    throw badQuery(shown, "is not percent-encoded UTF-8 (a % must start an escape of UTF-8)");
  }
}
