// A star whose object store does not answer tells its callers UNAVAILABLE (retry, here or
// elsewhere), never INTERNAL; one that cannot reach it at start stops, saying why.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { type AddressInfo, createServer, type Socket } from "node:net";
import { test } from "node:test";
import { promisify } from "node:util";
import { type ServiceError, status } from "@grpc/grpc-js";
import { createS3Store } from "../../src/platform/objstore/index.ts";
import { startStar } from "../../src/star/star.ts";
import { call, dataPlaneClient } from "../harness/grpc.ts";
import { freePort } from "../harness/ports.ts";
import { nodeArgs } from "../harness/process.ts";

const execFileAsync = promisify(execFile);

test("object storage refusing connections reaches the client as UNAVAILABLE", async (t) => {
  // Nothing listens on a port that was free a moment ago.
  const store = createS3Store({
    endpoint: `http://127.0.0.1:${await freePort()}`,
    bucket: "nova",
    maxAttempts: 1,
  });
  const star = await startStar({ id: "s", listen: "127.0.0.1:0", store });
  const client = dataPlaneClient(star.address);
  t.after(async () => {
    client.close();
    await star.close();
    store.close();
  });
  for (const [method, request] of [
    ["GetBucket", { name: "any" }],
    ["CreateBucket", { name: "any" }],
    ["Read", { bucket: "any", key: "k", seq_num: "0" }],
  ] as const) {
    const err = (await call(client, method, request as never).then(
      () => assert.fail(`${method} succeeded`),
      (e: unknown) => e,
    )) as ServiceError;
    assert.equal(err.code, status.UNAVAILABLE, `${method}: ${err.details}`);
    assert.match(err.details, /object storage is unavailable/);
  }
});

test("a star whose S3 endpoint never answers stops at start: --s3-max-attempts tries of --s3-timeout-ms", async (t) => {
  let connections = 0;
  const sockets = new Set<Socket>();
  const silent = createServer((socket) => {
    connections++;
    sockets.add(socket);
  });
  await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
  t.after(() => {
    for (const socket of sockets) socket.destroy();
    silent.close();
  });
  const { port } = silent.address() as AddressInfo;
  const [command, args] = nodeArgs("src/star/main.ts", [
    "--listen",
    "127.0.0.1:0",
    "--s3-endpoint",
    `http://127.0.0.1:${port}`,
    "--s3-timeout-ms",
    "200",
    "--s3-max-attempts",
    "2",
  ]);
  const exit = await execFileAsync(command, args, { timeout: 60_000 }).then(
    () => assert.fail("the star started"),
    (err: { code?: number; stderr?: string }) => err,
  );
  assert.equal(exit.code, 1, exit.stderr);
  assert.match(exit.stderr ?? "", /^nova-star: object storage: .*TimeoutError.*200 ms/m);
  assert.equal(connections, 2);
});
