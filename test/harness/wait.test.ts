import assert from "node:assert/strict";
import { stat } from "node:fs/promises";
import { createServer } from "node:net";
import { test } from "node:test";
import { freePort } from "./ports.ts";
import { tempDir } from "./tmp.ts";
import { waitFor } from "./wait.ts";

test("waitFor returns the first value that is neither undefined nor false", async () => {
  let calls = 0;
  const value = await waitFor(async () => {
    calls++;
    if (calls === 1) return undefined;
    if (calls === 2) return false;
    if (calls === 3) throw new Error("not yet");
    return { calls };
  });
  assert.deepEqual(value, { calls: 4 });
});

test("waitFor times out with the message and the last error", async () => {
  await assert.rejects(
    waitFor(
      () => {
        throw new Error("connection refused");
      },
      { timeoutMs: 100, message: "the server" },
    ),
    /timed out after 100 ms waiting for the server \(last error: Error: connection refused\)/,
  );
});

test("waitFor does not wait past its deadline for an attempt that hangs", async () => {
  const started = performance.now();
  await assert.rejects(
    waitFor(() => new Promise<never>(() => {}), { timeoutMs: 100 }),
    /timed out/,
  );
  assert.ok(performance.now() - started < 5000);
});

test("freePort returns a port a server can listen on", async (t) => {
  const port = await freePort();
  assert.ok(port > 0 && port < 65536);
  const server = createServer();
  t.after(() => server.close());
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", resolve);
  });
});

test("tempDir makes a directory that is gone after the test", async (t) => {
  let dir = "";
  await t.test("inner", async (inner) => {
    dir = await tempDir(inner);
    assert.ok((await stat(dir)).isDirectory());
  });
  await assert.rejects(stat(dir), { code: "ENOENT" });
});
