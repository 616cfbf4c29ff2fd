import assert from "node:assert/strict";
import { test } from "node:test";
import Fastify from "fastify";
import { HttpError } from "../errors/index.ts";
import { crossOriginPlugin } from "./cross-origin.ts";

async function app(trustProxy = false) {
  const server = Fastify({ trustProxy });
  server.setErrorHandler((err, _req, reply) => {
    reply.code(err instanceof HttpError ? err.status : 500).send({ message: String(err) });
  });
  await server.register(crossOriginPlugin, { allowed: ["https://app.example"] });
  server.all("/x", async () => "done");
  return server;
}

test("a write from another origin is refused; from the host asked or an allowed origin, served", async () => {
  const server = await app();
  const cases: [string, Record<string, string>, number][] = [
    ["POST", {}, 200],
    ["POST", { origin: "https://evil.example", host: "gw:8080" }, 403],
    ["DELETE", { origin: "null", host: "gw:8080" }, 403],
    ["PUT", { origin: "https://app.example", host: "gw:8080" }, 200],
    ["POST", { origin: "http://gw:8080", host: "gw:8080" }, 200],
    ["POST", { origin: "http://GW:8080", host: "gw:8080" }, 200],
    ["POST", { origin: "http://[::1]:8080", host: "[::1]:8080" }, 200],
    ["POST", { origin: "http://gw:8081", host: "gw:8080" }, 403],
    ["POST", { origin: "http://gw", host: "gw:80" }, 200],
    ["POST", { origin: "https://gw", host: "gw:443" }, 200],
    ["POST", { origin: "https://gw", host: "gw:80" }, 403],
    ["GET", { origin: "https://evil.example", host: "gw:8080" }, 200],
    ["HEAD", { origin: "https://evil.example", host: "gw:8080" }, 200],
  ];
  for (const [method, headers, status] of cases) {
    const res = await server.inject({ method: method as "POST", url: "/x", headers });
    assert.equal(res.statusCode, status, `${method} ${JSON.stringify(headers)}`);
  }
  await server.close();
});

test("behind a trusted proxy that rewrites Host, the host asked is its X-Forwarded-Host", async () => {
  const headers = {
    origin: "https://nova.example",
    host: "gateways",
    "x-forwarded-host": "nova.example",
  };
  for (const [trusted, status] of [
    [true, 200],
    [false, 403],
  ] as const) {
    const server = await app(trusted);
    const res = await server.inject({ method: "POST", url: "/x", headers });
    assert.equal(res.statusCode, status, `trusted: ${trusted}`);
    await server.close();
  }
});
