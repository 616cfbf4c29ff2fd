// The deadlines of the gateway's calls to its stars are flags: against a star that takes the
// connection and never answers, a call ends with 504 deadline_exceeded at --star-call-timeout-ms
// and an append at --star-append-timeout-ms, each set far under its default (30 s, 60 s) and
// under the test's own deadline for an answer; /readyz says 503.
import assert from "node:assert/strict";
import { createServer, type Socket } from "node:net";
import { after, before, test } from "node:test";
import { request } from "undici";
import { type GatewayProcess, gatewayProcess } from "../harness/gateway-process.ts";

const ANSWER_WITHIN_MS = 10_000;
let gw: GatewayProcess;
const sockets = new Set<Socket>();
const silent = createServer((socket) => {
  // Taken, never answered: no HTTP/2 settings, no data.
  sockets.add(socket);
  socket.on("close", () => sockets.delete(socket));
});

before(async () => {
  await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
  const address = silent.address();
  const port = typeof address === "object" && address ? address.port : 0;
  gw = await gatewayProcess(
    [`127.0.0.1:${port}`],
    [
      ...["--star-call-timeout-ms", "300"],
      ...["--star-append-timeout-ms", "400"],
      ...["--star-health-timeout-ms", "200"],
    ],
  );
});
after(async () => {
  await gw?.proc.kill("SIGTERM");
  for (const socket of sockets) socket.destroy();
  await new Promise((resolve) => silent.close(resolve));
});

/** A request whose answer must come within ANSWER_WITHIN_MS (the defaults would not). */
async function ask(method: "GET" | "POST", path: string, body?: unknown) {
  const res = await request(`${gw.base}${path}`, {
    method,
    headersTimeout: ANSWER_WITHIN_MS,
    ...(body === undefined
      ? {}
      : { body: JSON.stringify(body), headers: { "content-type": "application/json" } }),
  });
  return { status: res.statusCode, body: (await res.body.json()) as { code?: string } };
}

test("a call to a star that never answers is 504 at --star-call-timeout-ms", async () => {
  const res = await ask("POST", "/v1/buckets", { name: "silent" });
  assert.equal(res.status, 504);
  assert.equal(res.body.code, "deadline_exceeded");
});

test("an append is 504 at --star-append-timeout-ms", async () => {
  const res = await ask("POST", "/v1/buckets/silent/streams/s/records", {
    records: [{ body: "x" }],
  });
  assert.equal(res.status, 504);
  assert.equal(res.body.code, "deadline_exceeded");
});

test("/readyz is 503 against a star that never answers", async () => {
  const res = await ask("GET", "/readyz");
  assert.equal(res.status, 503);
});
