// `npm start`'s entry as a child process: embedded star and object storage, answering on the
// URL it prints, and a clean exit on SIGTERM.
import assert from "node:assert/strict";
import { test } from "node:test";
import { request } from "undici";
import { embeddedGateway } from "../harness/gateway-process.ts";
import { tempDir } from "../harness/tmp.ts";

test("the gateway starts embedded, serves on its printed URL, and stops on SIGTERM", async (t) => {
  const dir = await tempDir(t);
  const { url, proc: gw } = await embeddedGateway(dir);
  try {
    const ready = await request(`${url}/readyz`);
    assert.equal(ready.statusCode, 200, await ready.body.text());
    const created = await request(`${url}/v1/buckets`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ name: "started" }),
    });
    assert.equal(created.statusCode, 201, await created.body.text());
  } finally {
    const exit = await gw.kill("SIGTERM");
    assert.equal(exit.code, 0);
  }
});
