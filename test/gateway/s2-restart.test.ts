// An S2 SDK read session (fetch transport: SSE) that follows live appends while its gateway is
// closed and a new one starts on the same port: the SDK resumes by itself from the record after
// the last it got, and sees every record once, in order.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { AppendInput, AppendRecord, S2 } from "@s2-dev/streamstore";
import { type Gateway, inProcessGateway } from "../harness/gateway.ts";
import { freePort } from "../harness/ports.ts";
import { type Stack, startStack } from "../harness/stack.ts";

let stack: Stack<Gateway>;
let second: Gateway | undefined;

before(async () => {
  // Restarted on its port: one below the range the kernel hands out to other tests meanwhile.
  stack = await startStack("nova-s2-restart-", { port: await freePort() });
});
after(async () => {
  await second?.close();
  await stack?.close();
});

const client = (base: string) =>
  new S2({
    accessToken: "any-token",
    endpoints: { account: base, basin: base },
    // Enough attempts to ride out the few hundred ms the gateway is away.
    retry: { maxAttempts: 100, minBaseDelayMillis: 20, maxBaseDelayMillis: 100 },
  });

test("a read session resumes across a gateway restart with no gap and no duplicate", async () => {
  const base = stack.gw.base;
  const port = Number(new URL(base).port);
  const s2 = client(base);
  const basinName = `restart-${process.pid}`;
  await s2.basins.create({ basin: basinName });
  const basin = s2.basin(basinName);
  await basin.streams.create({ stream: "live" });
  const stream = basin.stream("live", { forceTransport: "fetch" });
  const total = 40;
  const seen: number[] = [];
  const session = await stream.readSession({ start: { from: { seqNum: 0 } } });
  const reading = (async () => {
    for await (const record of session) {
      seen.push(Number(record.body));
      if (seen.length === total) break;
    }
  })();
  const appendOne = (i: number) =>
    stream.append(AppendInput.create([AppendRecord.string({ body: String(i) })]));
  for (let i = 0; i < total / 2; i++) await appendOne(i);
  await stack.gw.close();
  second = await inProcessGateway([stack.star.address], {}, port);
  for (let i = total / 2; i < total; i++) await appendOne(i);
  await reading;
  assert.deepEqual(
    seen,
    Array.from({ length: total }, (_, i) => i),
  );
});
