// The container's HEALTHCHECK program (src/healthcheck.ts) against stand-in listeners: it asks
// /livez over TLS when the environment gives the gateway a certificate, and fails on anything
// but a 200.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { createServer as createHttp, type Server } from "node:http";
import { createServer as createHttps } from "node:https";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { test } from "node:test";
import { freePort } from "../harness/ports.ts";
import { systemTool } from "../harness/system-tool.ts";
import { selfSignedCert } from "../harness/tls.ts";
import { tempDir } from "../harness/tmp.ts";

const program = join(import.meta.dirname, "..", "..", "src", "healthcheck.ts");
const openssl = systemTool("/usr/bin/openssl", "openssl");

/** The program's exit code in an environment of only `env` (and PATH). */
function healthcheck(env: Record<string, string>): Promise<number> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [program],
      { env: { PATH: process.env.PATH, ...env }, timeout: 20_000 },
      (err) => resolve(err ? Number(err.code ?? -1) : 0),
    );
  });
}

/** The healthcheck's exit code against `server`, listening on loopback, with `env` besides. */
async function against(server: Server, env: Record<string, string> = {}): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = String((server.address() as AddressInfo).port);
  try {
    return await healthcheck({ NOVA_PORT: port, ...env });
  } finally {
    server.close();
  }
}

const livez = (status: number) => createHttp((_req, res) => res.writeHead(status).end());

test("a TLS gateway is asked over TLS, on loopback for a wildcard host", {
  skip: openssl.skip,
}, async (t) => {
  const cert = await selfSignedCert(openssl, await tempDir(t));
  const gateway = () =>
    createHttps({ cert: cert.cert, key: cert.key }, (req, res) =>
      res.writeHead(req.url === "/livez" ? 200 : 404).end(),
    );
  const tls = { NOVA_TLS_CERT: cert.certFile, NOVA_TLS_KEY: cert.keyFile };
  assert.equal(await against(gateway(), { NOVA_HOST: "0.0.0.0", ...tls }), 0);
  assert.equal(await against(gateway(), { NOVA_HOST: "0.0.0.0" }), 1);
});

test("anything but a 200, or no listener, is unhealthy", async () => {
  assert.equal(await against(livez(503)), 1);
  assert.equal(await healthcheck({ NOVA_PORT: String(await freePort()) }), 1);
  assert.equal(await against(livez(200)), 0);
});
