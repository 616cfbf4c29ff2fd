// The container's HEALTHCHECK: exits 0 when the gateway this environment configures answers
// /livez with 200, else 1. It reads the gateway's own flags from the environment (NOVA_PORT,
// NOVA_HOST, NOVA_TLS_CERT; a HEALTHCHECK does not see the ENTRYPOINT's arguments), so a TLS
// listener is asked over TLS. The certificate is not verified: it names the host clients use,
// not the loopback address asked here, and liveness is all this checks.
import { get as httpGet } from "node:http";
import { get as httpsGet } from "node:https";
import { flags, PROGRAM } from "./flags.ts";
import { parseProcessFlags } from "./platform/cli/index.ts";

const TIMEOUT_MS = 2_500;
const opts = parseProcessFlags(flags, `${PROGRAM} healthcheck`, "Exits 0 when /livez answers 200.");
const wildcard: Record<string, string> = { "0.0.0.0": "127.0.0.1", "::": "::1" };
const host = wildcard[opts.host] ?? opts.host;
const get = opts.tlsCert ? httpsGet : httpGet;
const request = get(
  {
    host,
    port: opts.port,
    path: "/livez",
    timeout: TIMEOUT_MS,
    rejectUnauthorized: false,
  },
  (res) => {
    res.resume();
    process.exit(res.statusCode === 200 ? 0 : 1);
  },
);
request.on("timeout", () => request.destroy(new Error(`no answer within ${TIMEOUT_MS} ms`)));
request.on("error", (err) => {
  process.stderr.write(`${PROGRAM} healthcheck: ${err.message}\n`);
  process.exit(1);
});
