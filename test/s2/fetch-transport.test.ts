// S2's SDK on its fetch transport against `npm start`: its append session sends one batch per
// round trip, so 1,000 one-record batches queued at once exercise the gateway's unary append
// path a thousand times in order. The SDK resends a batch not acked `requestTimeoutMillis` after
// it was queued (5 s by default), which a loaded machine reaches; a resend is a second append,
// so the test gives the SDK a deadline no machine reaches and checks only what the gateway does.
// How long 1,000 such appends take against the default 5 s is `npm run bench:s2`'s to say.
import assert from "node:assert/strict";
import { test } from "node:test";
import { AppendInput, AppendRecord, S2, type S2Stream } from "@s2-dev/streamstore";
import { embeddedGateway } from "../harness/gateway-process.ts";
import { http } from "../harness/http.ts";
import { tempDir } from "../harness/tmp.ts";

/** Submits `total` one-record batches at once on one session, as S2's quick start does; the acks' starts. */
async function appendOneByOne(stream: S2Stream, total: number): Promise<number[]> {
  const session = await stream.appendSession();
  const acks: Promise<{ start: { seqNum: number } }>[] = [];
  for (let i = 0; i < total; i++) {
    acks.push(
      (await session.submit(AppendInput.create([AppendRecord.string({ body: `r${i}` })]))).ack(),
    );
  }
  const starts = (await Promise.all(acks)).map((a) => a.start.seqNum);
  await session.close();
  return starts;
}

test("1,000 one-record batches on a fetch-transport session land exactly once, in order", async (t) => {
  const { url, proc } = await embeddedGateway(await tempDir(t));
  t.after(() => proc.kill("SIGTERM"));
  const s2 = new S2({
    accessToken: "unused",
    endpoints: { account: url, basin: url },
    requestTimeoutMillis: 600_000,
  });
  const name = `fetch-${process.pid}`;
  await s2.basins.create({ basin: name });
  const basin = s2.basin(name);
  const total = 1000;
  await basin.streams.create({ stream: "s" });
  const stream = basin.stream("s", { forceTransport: "fetch" });
  try {
    assert.deepEqual(
      await appendOneByOne(stream, total),
      Array.from({ length: total }, (_, i) => i),
    );
  } finally {
    await stream.close();
  }
  const read = await http(
    url,
    "GET",
    `/v1/buckets/${name}/streams/s/records?seq_num=0&count=${total + 1}`,
  );
  assert.equal(read.status, 200, read.text);
  assert.deepEqual(
    read.json.records.map((r: { body: string }) => r.body),
    Array.from({ length: total }, (_, i) => `r${i}`),
  );
});
