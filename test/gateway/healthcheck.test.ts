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

async function listening(server: Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return (server.address() as AddressInfo).port;
}

const livez = (status: number) => createHttp((_req, res) => res.writeHead(status).end());

test("a TLS gateway is asked over TLS, on loopback for a wildcard host", {
  skip: openssl.skip,
}, async (t) => {
  const cert = await selfSignedCert(openssl, await tempDir(t));
  const server = createHttps({ cert: cert.cert, key: cert.key }, (req, res) =>
    res.writeHead(req.url === "/livez" ? 200 : 404).end(),
  );
  const port = String(await listening(server));
  try {
    const tls = { NOVA_TLS_CERT: cert.certFile, NOVA_TLS_KEY: cert.keyFile };
    assert.equal(await healthcheck({ NOVA_HOST: "0.0.0.0", NOVA_PORT: port, ...tls }), 0);
    assert.equal(await healthcheck({ NOVA_HOST: "0.0.0.0", NOVA_PORT: port }), 1);
  } finally {
    server.close();
  }
});

test("anything but a 200, or no listener, is unhealthy", async () => {
  const server = livez(503);
  const port = String(await listening(server));
  try {
    assert.equal(await healthcheck({ NOVA_PORT: port }), 1);
  } finally {
    server.close();
  }
  assert.equal(await healthcheck({ NOVA_PORT: port }), 1);
  const up = livez(200);
  const upPort = String(await listening(up));
  try {
    assert.equal(await healthcheck({ NOVA_PORT: upPort }), 0);
  } finally {
    up.close();
  }
});
