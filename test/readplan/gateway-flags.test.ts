// The gateway process's object-storage flags: documented in --help, refused when malformed,
// --readplan=off sends every read to the stars, and --s3-* settings let it fetch raw
// {storage_bucket, object_key} entries (a star with --readplan-urls object).
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { gatewayProcess } from "../harness/gateway-process.ts";
import { get } from "../harness/http.ts";
import { scraped } from "../harness/metrics.ts";
import { nodeArgs, startProcess } from "../harness/process.ts";
import { type StarProcess, s3Storage, startStarProcess } from "../harness/star-process.ts";
import { appendBatches, createStream, type Objstore, startObjstore } from "./fixture.ts";

let dir: string;
let objstore: Objstore;
let star: StarProcess;
const bucket = `flags-${process.pid}`;
const path = `/v1/buckets/${bucket}/streams/s/records?seq_num=0`;

before(async () => {
  dir = await mkdtemp(join(tmpdir(), "nova-readplan-flags-"));
  objstore = await startObjstore(join(dir, "s3"), ["nova"]);
  star = await startStarProcess(s3Storage(objstore.url), {
    args: ["--readplan-urls", "object"],
  });
  await createStream(star.client, bucket, "s");
  await appendBatches(star, bucket, "s", 0, 3, 50, (b) => Date.now() - 1000 + b);
});

after(async () => {
  star?.client.close();
  await star?.proc.kill();
  await objstore?.proc.kill();
  await rm(dir, { recursive: true, force: true });
});

async function run(args: string[]) {
  const [command, argv] = nodeArgs("src/main.ts", args);
  const p = await startProcess({ command, args: argv, readyLine: /^/ }).catch((e: Error) => e);
  if (p instanceof Error) return { out: "", err: p.message };
  await p.waitForExit();
  return { out: p.stdoutLines().join("\n"), err: p.stderr() };
}

test("--help documents the object-storage flags", async () => {
  const { out } = await run(["--help"]);
  for (const flag of [
    "--[no-]readplan",
    "--readplan-cache-mb",
    "--readplan-loading-mb",
    "--readplan-prefetch",
    "--readplan-connections",
    "--readplan-timeout-ms",
    "--s3-endpoint",
    "--s3-region",
    "--s3-access-key-id",
    "--s3-secret-access-key",
  ]) {
    assert.ok(out.includes(flag), `${flag} in\n${out}`);
  }
});

test("a malformed flag is refused with exit 2", async () => {
  for (const bad of [["--readplan=maybe"], ["--readplan-connections", "0"]]) {
    const { err } = await run(["--stars", "127.0.0.1:1", ...bad]);
    assert.match(err, /code 2/, bad.join(" "));
    assert.match(err, /--readplan/, bad.join(" "));
  }
});

test("raw entries are fetched with the gateway's --s3-* settings; --readplan=off reads the star", async (t) => {
  const withS3 = await gatewayProcess([star.address], ["--s3-endpoint", objstore.url]);
  t.after(() => withS3.proc.kill());
  const withoutS3 = await gatewayProcess([star.address], ["--readplan-loading-mb", "3"]);
  t.after(() => withoutS3.proc.kill());
  const off = await gatewayProcess([star.address], ["--readplan=off"]);
  t.after(() => off.proc.kill());

  const want = await get(off.base, path);
  assert.equal(want.status, 200);
  assert.equal(JSON.parse(want.text).records.length, 150);
  for (const g of [withS3, withoutS3]) assert.equal((await get(g.base, path)).text, want.text);

  const metrics = async (g: { base: string }) => (await get(g.base, "/metrics")).text;
  const loading = { part: "readplan_loading" };
  assert.equal(
    scraped(await metrics(withoutS3), "nova_gateway_memory_bound_bytes", loading),
    3 << 20,
  );
  const s3 = await metrics(withS3);
  assert.equal(
    scraped(s3, "nova_gateway_readplan_chunk_fetches_total", { source: "s3", outcome: "ok" }),
    3,
  );
  assert.equal(scraped(s3, "nova_gateway_upstream_calls_total", { verb: "Read" }), 1);
  // Without S3 settings a raw entry cannot be fetched: the star serves it.
  const none = await metrics(withoutS3);
  assert.equal(
    scraped(none, "nova_gateway_readplan_fallbacks_total", { reason: "unavailable" }),
    3,
  );
  const offPage = await metrics(off);
  assert.equal(scraped(offPage, "nova_gateway_upstream_calls_total", { verb: "ReadPlan" }), 0);
  assert.equal(scraped(offPage, "nova_gateway_readplan_records_total"), 0);
});
