// `npm start`'s entry as a child process: embedded star and object storage, answering on the
// URL it prints, closing idle connections after --keep-alive-timeout-ms, and a clean exit on
// SIGTERM.
import assert from "node:assert/strict";
import net from "node:net";
import { test } from "node:test";
import { request } from "undici";
import { embeddedGateway } from "../harness/gateway-process.ts";
import { tempDir } from "../harness/tmp.ts";
import { waitFor } from "../harness/wait.ts";

test("the gateway starts embedded, serves on its printed URL, and stops on SIGTERM", async (t) => {
  const dir = await tempDir(t);
  const { url, proc: gw } = await embeddedGateway(dir, [
    ...["--keep-alive-timeout-ms", "2000", "--keep-alive-hint-s", "1"],
  ]);
  try {
    const ready = await request(`${url}/readyz`);
    assert.equal(ready.statusCode, 200, await ready.body.text());
    const created = await request(`${url}/v1/buckets`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ name: "started" }),
    });
    assert.equal(created.statusCode, 201, await created.body.text());

    // An idle connection is the gateway's to close after the flag's time (72 s by default).
    const { hostname, port } = new URL(url);
    const idle = net.connect(Number(port), hostname);
    idle.on("error", () => {});
    t.after(() => idle.destroy());
    let answered = "";
    idle.on("data", (chunk: Buffer) => {
      answered += chunk.toString();
    });
    idle.write(`GET /livez HTTP/1.1\r\nhost: ${hostname}\r\n\r\n`);
    await waitFor(() => idle.closed, { message: "the idle connection closed", timeoutMs: 15_000 });
    assert.match(answered, /^HTTP\/1\.1 200/);
  } finally {
    const exit = await gw.kill("SIGTERM");
    assert.equal(exit.code, 0);
  }
});
