// A limit answers one way whichever layer finds it: a batch over a star's per-batch cap that the
// gateway's own cap lets through (a star configured lower) is 413 payload_too_large, as the
// gateway's own check answers, and nothing is appended.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { type Gateway, inProcessGateway } from "../harness/gateway.ts";
import { http, newStream } from "../harness/http.ts";
import { type StarFixture, startStarFixture } from "../star/fixture.ts";

let star: StarFixture | undefined;
let gw: Gateway | undefined;

before(async () => {
  star = await startStarFixture({ maxBatchBytes: 100 });
  gw = await inProcessGateway([star.star.address], { checkResponses: true });
});
after(async () => {
  await gw?.close();
  await star?.close();
});

test("the star's batch cap is 413 payload_too_large, as the gateway's is", async () => {
  const base = (gw as Gateway).base;
  const stream = await newStream(base);
  const records = ["x".repeat(50), "y".repeat(50), "z"].map((body) => ({ body }));
  const res = await http(base, "POST", `${stream}/records`, { records });
  assert.equal(res.status, 413, res.text);
  assert.equal(res.json.code, "payload_too_large");
  assert.equal(res.json.retryable, false);
  assert.equal(res.json.field, "records");
  assert.match(res.json.message, /101 content bytes is over the per-batch cap of 100/);
  const tail = await http(base, "GET", `${stream}/records/tail`);
  assert.equal(tail.json.tail.seq_num, 0, "nothing was appended");
  // Within the star's cap the same stream takes the batch.
  const ok = await http(base, "POST", `${stream}/records`, { records: records.slice(0, 2) });
  assert.equal(ok.status, 200, ok.text);
});
