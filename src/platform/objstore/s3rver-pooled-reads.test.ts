import assert from "node:assert/strict";
import { test } from "node:test";
import S3rver from "s3rver";
import { request } from "undici";
import { tempDir } from "../../../test/harness/tmp.ts";
import { waitFor } from "../../../test/harness/wait.ts";
import { KeyTurns } from "../concurrency/index.ts";
import { BufferPool } from "../memory/index.ts";
import { fixS3rverServer } from "./s3rver-fixes.ts";
import { storeOf } from "./s3rver-internals.ts";
import { readIntoPooledMemory } from "./s3rver-pooled-reads.ts";
import { fixS3rverStore } from "./s3rver-store-fixes.ts";
import { signedHeaders } from "./signed-request.test-helper.ts";

const MiB = 1024 * 1024;

/** An s3rver with pooled reads from `pool`, and a bucket "b" holding `objects`. */
async function serve(
  t: { after(fn: () => Promise<void>): void },
  pool: BufferPool,
  objects: Record<string, Buffer>,
): Promise<string> {
  const server = new S3rver({
    address: "127.0.0.1",
    port: 0,
    directory: await tempDir(t),
    silent: true,
    configureBuckets: [{ name: "b", configs: [] }],
  });
  fixS3rverStore(storeOf(server));
  fixS3rverServer(server, new KeyTurns());
  readIntoPooledMemory(server, pool);
  const { port } = await server.run();
  t.after(() => server.close());
  const base = `http://127.0.0.1:${port}/b`;
  for (const [key, body] of Object.entries(objects)) {
    const url = `${base}/${key}`;
    const res = await request(url, { method: "PUT", body, headers: signedHeaders("PUT", url) });
    assert.equal(res.statusCode, 200);
    await res.body.dump();
  }
  return base;
}

/** A signed GET (or HEAD) of `url`. */
const get = (url: string, method: "GET" | "HEAD" = "GET") =>
  request(url, { method, headers: signedHeaders(method, url) });

test("a GET's memory goes back to the pool once its response is sent, and is lent again", async (t) => {
  const pool = new BufferPool(64 * MiB);
  const bytes = Buffer.alloc(MiB, 7);
  const base = await serve(t, pool, { x: bytes });
  for (let i = 0; i < 3; i++) {
    const res = await get(`${base}/x`);
    assert.ok(Buffer.from(await res.body.arrayBuffer()).equals(bytes));
    // The server sees 'finish' on its own schedule, after the client may have read everything.
    await waitFor(() => pool.idleBytes === MiB, { message: `GET ${i}'s memory given back` });
  }
});

test("a response still being sent holds its memory; HEAD reads give theirs back", async (t) => {
  const pool = new BufferPool(64 * MiB);
  const big = Buffer.alloc(8 * MiB, 1);
  const base = await serve(t, pool, { big });
  const held = await get(`${base}/big`);
  assert.equal(held.statusCode, 200);
  const head = await get(`${base}/big`, "HEAD");
  await head.body.dump();
  await waitFor(() => pool.idleBytes === 8 * MiB, { message: "the HEAD's memory given back" });
  // The held response's memory is still out: the next GET needs new memory, which it gives
  // back too once sent, so both end up idle.
  const next = await get(`${base}/big`);
  assert.ok(Buffer.from(await next.body.arrayBuffer()).equals(big));
  assert.ok(Buffer.from(await held.body.arrayBuffer()).equals(big));
  await waitFor(() => pool.idleBytes === 16 * MiB, { message: "both GETs' memory given back" });
});
