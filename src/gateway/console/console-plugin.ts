// The browser console: its page at `/`, its files (assets/) under `/console/`, using only the
// public HTTP API. Files are read from disk when asked for, so a gateway whose console is never
// opened holds nothing for it; each answer carries an ETag and is revalidated (no-cache), so a
// new release is seen at the next load.
import { join } from "node:path";
import fastifyStatic from "@fastify/static";
import type { FastifyInstance } from "fastify";
import { PAGE_HEADERS } from "../http/index.ts";

export const CONSOLE_ASSETS = join(import.meta.dirname, "assets");

const CSP =
  "default-src 'self'; connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/** Not wrapped in fastify-plugin: the static server and its reply decorator stay in here. */
export async function consolePlugin(app: FastifyInstance): Promise<void> {
  await app.register(fastifyStatic, {
    root: CONSOLE_ASSETS,
    prefix: "/console/",
    // Routes for the files present at start only: no wildcard that would shadow other 404s.
    wildcard: false,
    index: false,
    cacheControl: false,
    setHeaders: (reply) => {
      reply.header("cache-control", "no-cache");
      reply.headers(PAGE_HEADERS);
      // The console loads its own files and talks to this origin only.
      reply.header("content-security-policy", CSP);
    },
  });
  const page = { schema: { hide: true } };
  app.get("/", page, (_req, reply) => reply.sendFile("index.html"));
  app.get("/console", page, (_req, reply) => reply.redirect("/", 301));
}
