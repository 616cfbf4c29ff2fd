// @durable-streams/client, the protocol's own client, from Node against a gateway and a star
// process: its IdempotentProducer writes JSON messages exactly once, a catch-up read returns
// them, and live readers (SSE and long-poll) follow the stream across a gateway restart on the
// same port, each message once and in order.
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { DurableStream, IdempotentProducer, stream } from "@durable-streams/client";
import { type Gateway, inProcessGateway } from "../harness/gateway.ts";
import { freePort } from "../harness/ports.ts";
import { type StarProcess, startStarProcess } from "../harness/star-process.ts";
import { waitFor } from "../harness/wait.ts";

interface Message {
  i: number;
}

const DS = { bucket: "durable-streams", longPollMs: 1000, sseCloseS: 60 };
const messages = (from: number, to: number): Message[] =>
  Array.from({ length: to - from }, (_, k) => ({ i: from + k }));

describe("@durable-streams/client from Node", () => {
  let star: StarProcess | undefined;
  let gw: Gateway | undefined;
  let dir: string | undefined;

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), "nova-ds-client-"));
    star = await startStarProcess(["--data-dir", dir]);
    // Restarted on its port: one below the range the kernel hands out to other tests meanwhile.
    gw = await inProcessGateway([star.address], { ds: DS }, await freePort());
  });
  after(async () => {
    await gw?.close();
    star?.client.close();
    await star?.proc.kill("SIGTERM");
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  async function produce(url: string, id: string, batch: Message[]): Promise<void> {
    const handle = new DurableStream({ url, contentType: "application/json" });
    const errors: unknown[] = [];
    const producer = new IdempotentProducer(handle, id, {
      autoClaim: true,
      onError: (err) => errors.push(err),
    });
    for (const m of batch) producer.append(JSON.stringify(m));
    await producer.flush();
    await producer.detach();
    assert.deepEqual(errors, []);
  }

  test("a producer's messages read back once each, in order", async () => {
    const url = `${(gw as Gateway).base}/ds/v1/stream/client/catch-up`;
    await DurableStream.create({ url, contentType: "application/json" });
    await produce(url, "writer", messages(0, 200));
    const res = await stream<Message>({ url, offset: "-1", live: false });
    assert.deepEqual(await res.json(), messages(0, 200));
  });

  for (const live of ["sse", "long-poll"] as const) {
    test(`a ${live} reader follows live across a gateway restart`, async () => {
      const url = () => `${(gw as Gateway).base}/ds/v1/stream/client/live-${live}`;
      const first = url();
      await DurableStream.create({ url: first, contentType: "application/json" });
      const seen: Message[] = [];
      const reader = await stream<Message>({
        url: first,
        offset: "-1",
        live,
        backoffOptions: { initialDelay: 50, maxDelay: 500, multiplier: 2, maxRetries: 200 },
      });
      reader.subscribeJson(async (batch) => {
        seen.push(...batch.items);
      });
      await produce(first, "writer-1", messages(0, 20));
      await waitFor(() => seen.length >= 20, { timeoutMs: 20_000, message: "the first 20" });

      const port = Number(new URL(first).port);
      await (gw as Gateway).close();
      gw = undefined;
      gw = await inProcessGateway([(star as StarProcess).address], { ds: DS }, port);
      await produce(url(), "writer-2", messages(20, 40));
      await waitFor(() => seen.length >= 40, { timeoutMs: 30_000, message: "all 40" });
      reader.cancel();
      assert.deepEqual(seen, messages(0, 40));
    });
  }
});
