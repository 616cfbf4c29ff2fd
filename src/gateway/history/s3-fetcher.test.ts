import assert from "node:assert/strict";
import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { test } from "node:test";
import { createS3Fetcher } from "./s3-fetcher.ts";

test("raw chunk GETs hold at most --readplan-connections connections to the store", async (t) => {
  let connections = 0;
  let open = 0;
  let most = 0;
  const held: ServerResponse[] = [];
  const server = createServer((_req, res) => {
    open++;
    most = Math.max(most, open);
    held.push(res);
    // Answer in a batch once several wait, so the client has every reason to open more.
    if (held.length >= 2) {
      for (const r of held.splice(0)) {
        open--;
        r.writeHead(200, { "content-length": "4" }).end("abcd");
      }
    }
  });
  server.on("connection", () => connections++);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const fetcher = createS3Fetcher(
    {
      endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
      region: "us-east-1",
      accessKeyId: "S3RVER",
      secretAccessKey: "S3RVER",
    },
    { timeoutMs: 5_000, connections: 2 },
  );
  t.after(() => {
    fetcher.close();
    server.close();
    server.closeAllConnections();
  });
  const bodies = await Promise.all(
    Array.from({ length: 12 }, (_, i) => fetcher.get("nova", `chunks/${i}`, 4)),
  );
  assert.deepEqual(
    bodies.map((b) => b.toString()),
    Array(12).fill("abcd"),
  );
  assert.equal(connections, 2);
  assert.equal(most, 2);
});
