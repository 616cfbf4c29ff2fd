// Page reads and caches, through gateway processes over a star process: a page that can no longer
// change is cacheable (public without a credential) with a weak ETag and 304 on If-None-Match;
// a page touching the tail, a long-poll and a read from the tail are no-store; the representation
// (format, integers, SSE) selects its own validator and says what it varies on.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { request } from "undici";
import { type GatewayProcess, gatewayProcess } from "../harness/gateway-process.ts";
import { append, newStream } from "../harness/http.ts";
import { metric } from "../harness/metrics.ts";
import { type StarProcess, startStarProcess } from "../harness/star-process.ts";
import { tempDir } from "../harness/tmp.ts";

let star: StarProcess;
let gw: GatewayProcess;
let stream: string;
const cleanups: (() => Promise<void>)[] = [];

async function get(path: string, headers: Record<string, string> = {}, method = "GET") {
  const res = await request(gw.base + path, { method: method as "GET", headers });
  return { status: res.statusCode, headers: res.headers, text: await res.body.text() };
}

before(async () => {
  const dir = await tempDir({ after: (fn) => void cleanups.push(fn) });
  star = await startStarProcess(["--data-dir", dir]);
  gw = await gatewayProcess([star.address]);
  stream = await newStream(gw.base);
  await append(gw.base, stream, ["a", "b", "c", "d", "e"]);
});

after(async () => {
  await gw?.close();
  star?.client.close();
  await star?.proc.kill("SIGTERM");
  for (const fn of cleanups) await fn();
});

describe("page reads and caches", () => {
  test("a page that stopped short of the tail: public, max-age, weak ETag, Vary; 304 on a match", async () => {
    const path = `${stream}/records?seq_num=1&count=2`;
    const first = await get(path);
    assert.equal(first.status, 200, first.text);
    assert.deepEqual(
      JSON.parse(first.text).records.map((r: { body: string }) => r.body),
      ["b", "c"],
    );
    assert.equal(first.headers["cache-control"], "public, max-age=60");
    assert.equal(first.headers.vary, "accept, accept-encoding, nova-format, authorization");
    const etag = String(first.headers.etag);
    assert.match(etag, /^W\/"[\w-]+"$/);

    const again = await get(path, { "if-none-match": etag });
    assert.equal(again.status, 304);
    assert.equal(again.text, "");
    assert.equal(again.headers.etag, etag);
    assert.equal(again.headers["cache-control"], "public, max-age=60");

    // The tail moved: the same records, the same validator.
    await append(gw.base, stream, ["f"]);
    const later = await get(path, { "if-none-match": `"other", ${etag}` });
    assert.equal(later.status, 304);

    const head = await get(path, {}, "HEAD");
    assert.equal(head.status, 200);
    assert.equal(head.headers.etag, etag);
  });

  test("another representation of the same records has its own validator", async () => {
    const path = `${stream}/records?seq_num=1&count=2`;
    const raw = await get(path);
    const base64 = await get(path, { "nova-format": "base64" });
    assert.equal(base64.status, 200);
    assert.equal(JSON.parse(base64.text).records[0].body, Buffer.from("b").toString("base64"));
    assert.notEqual(base64.headers.etag, raw.headers.etag);
    const strings = await get(`${path}&int64=string`);
    assert.notEqual(strings.headers.etag, raw.headers.etag);
    // The raw page's validator does not stand for the base64 one.
    const cross = await get(path, {
      "nova-format": "base64",
      "if-none-match": String(raw.headers.etag),
    });
    assert.equal(cross.status, 200);
  });

  test("a page that reached the tail, a read from the tail, an empty page, a long-poll: no-store", async () => {
    const tail = JSON.parse((await get(`${stream}/records/tail`)).text).tail.seq_num as number;
    for (const path of [
      `${stream}/records?seq_num=${tail - 2}`,
      `${stream}/records?tail_offset=2`,
      `${stream}/records?seq_num=${tail}`,
      `${stream}/records?seq_num=${tail - 1}&wait=1`,
    ]) {
      const res = await get(path, { "if-none-match": "*" });
      assert.equal(res.status, 200, `${path}: ${res.text}`);
      assert.equal(res.headers["cache-control"], "no-store", path);
      assert.equal(res.headers.etag, undefined, path);
      // Every page read says what its answer depends on, a long-poll's too.
      assert.match(String(res.headers.vary), /accept, accept-encoding, nova-format, authorization/);
    }
  });

  test("every other answer says no-store: the tail, descriptors, errors, S2's reads", async () => {
    const bucket = stream.split("/")[3] as string;
    for (const [path, status, headers] of [
      [`${stream}/records/tail`, 200, {}],
      [stream, 200, {}],
      [`/v1/buckets/${bucket}/streams`, 200, {}],
      [`/v1/buckets/${bucket}/streams/missing/records?seq_num=0`, 404, {}],
      [`${stream}/records?seq_num=x`, 400, {}],
      ["/v1/nowhere", 404, {}],
      ["/v1/streams/s/records?seq_num=0", 200, { "s2-basin": bucket }],
    ] as const) {
      const res = await get(path, headers);
      assert.equal(res.status, status, `${path}: ${res.text}`);
      assert.equal(res.headers["cache-control"], "no-store", path);
    }
  });

  test("an event stream of the same URL is never a cached page", async () => {
    const res = await request(`${gw.base}${stream}/records?seq_num=1&count=2`, {
      headers: { accept: "text/event-stream" },
    });
    assert.equal(res.headers["content-type"], "text/event-stream");
    assert.equal(res.headers["cache-control"], "no-cache, no-transform");
    assert.equal(res.headers.etag, undefined);
    res.body.on("error", () => {});
    res.body.destroy();
  });

  test("a 304 gives the page's pooled memory back, as a sent page does", async () => {
    const fresh = await gatewayProcess([star.address]);
    try {
      const big = await newStream(fresh.base);
      const body = "x".repeat(1024);
      await append(
        fresh.base,
        big,
        Array.from({ length: 100 }, () => body),
      );
      const idle = () =>
        metric(fresh.base, "nova_gateway_memory_held_bytes", 'part="response_buffers_idle"');
      const path = `${big}/records?seq_num=0&count=80`;
      const first = await request(fresh.base + path);
      assert.ok((await first.body.text()).length > 80 * 1024);
      const kept = await idle();
      assert.ok(kept >= 128 * 1024, `a sent page's memory is kept for reuse: ${kept}`);
      const again = await request(fresh.base + path, {
        headers: { "if-none-match": String(first.headers.etag) },
      });
      await again.body.text();
      assert.equal(again.statusCode, 304);
      assert.equal(await idle(), kept, "the 304's page went back too");
    } finally {
      await fresh.close();
    }
  });

  test("--cache-max-age-s 0 makes every page no-store", async () => {
    const off = await gatewayProcess([star.address], ["--cache-max-age-s", "0"]);
    try {
      const res = await request(`${off.base}${stream}/records?seq_num=0&count=1`);
      await res.body.text();
      assert.equal(res.statusCode, 200);
      assert.equal(res.headers["cache-control"], "no-store");
      assert.equal(res.headers.etag, undefined);
    } finally {
      await off.close();
    }
  });
});
