// Gateways behind nginx's proxy_cache (Debian's nginx), as users put a shared cache in front:
// - 100 clients reading the same settled page at once reach the gateway once (proxy_cache_lock
//   holds the others until the first answer is stored); all get the same page.
// - a page read with a token is private: never served from the cache, neither to a client
//   without a token (the gateway answers it 401) nor to the next one with a token.
// - a page touching the tail is no-store: an append shows in the next read through the cache.
// - the same URL in base64 or as an event stream is another representation (Vary), and the
//   event stream streams through nginx.
// - the Durable Streams face: 100 clients reading one offset reach the gateway once, and a read
//   at the tail is not kept, so the next read of that offset shows an append.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { request } from "undici";
import { offsetOf } from "../../src/gateway/ds/offsets.ts";
import { type GatewayProcess, gatewayProcess } from "../harness/gateway-process.ts";
import { append, newStream } from "../harness/http.ts";
import { metric } from "../harness/metrics.ts";
import { type Nginx, startNginx } from "../harness/nginx.ts";
import { type StarProcess, startStarProcess, withApiKeys } from "../harness/star-process.ts";
import { systemTool } from "../harness/system-tool.ts";
import { tempDir } from "../harness/tmp.ts";

const nginxTool = systemTool("/usr/sbin/nginx", "nginx");
const skip = nginxTool.skip;

const SECRET = "reader-secret-9c2e";
const READ_ROUTE = 'method="GET",route="/v1/buckets/:bucket/streams/:key/records"';
const DS_ROUTE = 'method="GET",route="/ds/v1/stream/*"';

let open: { star: StarProcess; gw: GatewayProcess } | undefined;
let authed: { star: StarProcess; gw: GatewayProcess } | undefined;
let nginx: Nginx | undefined;
const cleanups: (() => Promise<void>)[] = [];

async function get(base: string, path: string, headers: Record<string, string> = {}) {
  const res = await request(base + path, { headers });
  return { status: res.statusCode, headers: res.headers, text: await res.body.text() };
}

/** The page reads a gateway has answered with `status`, from its /metrics. */
/** A Durable Streams create or append of text; its body is drained. */
async function dsWrite(url: string, method: "PUT" | "POST", body?: string) {
  const res = await request(url, {
    method,
    headers: { "content-type": "text/plain" },
    ...(body === undefined ? {} : { body }),
  });
  await res.body.dump();
  return res;
}

function pageReads(gw: GatewayProcess, status: number): Promise<number> {
  return metric(gw.base, "nova_gateway_requests_total", `${READ_ROUTE},status="${status}"`);
}

before(async () => {
  if (skip) return;
  const dir = await tempDir({ after: (fn) => void cleanups.push(fn) });
  const openStar = await startStarProcess(["--data-dir", `${dir}/open`]);
  open = { star: openStar, gw: await gatewayProcess([openStar.address]) };
  const authStar = await startStarProcess([
    "--data-dir",
    `${dir}/authed`,
    ...withApiKeys(`reader ${SECRET} nova:*:*`),
  ]);
  authed = { star: authStar, gw: await gatewayProcess([authStar.address]) };
  nginx = await startNginx(nginxTool, [open.gw.base, authed.gw.base], `${dir}/nginx`);
});

after(async () => {
  await nginx?.close();
  for (const side of [open, authed]) {
    await side?.gw.close();
    side?.star.client.close();
    await side?.star.proc.kill("SIGTERM");
  }
  for (const fn of cleanups) await fn();
});

describe("behind nginx's proxy_cache", () => {
  test("100 clients reading one settled page reach the gateway once", { skip }, async () => {
    const { gw } = open as { gw: GatewayProcess };
    const front = (nginx as Nginx).bases[0] as string;
    const stream = await newStream(gw.base);
    await append(
      gw.base,
      stream,
      Array.from({ length: 20 }, (_, i) => `r${i}`),
    );
    const path = `${stream}/records?seq_num=5&count=10`;
    const before = await pageReads(gw, 200);

    const pages = await Promise.all(Array.from({ length: 100 }, () => get(front, path)));
    for (const page of pages) {
      assert.equal(page.status, 200, page.text);
      assert.equal(page.text, (pages[0] as { text: string }).text);
    }
    const records = JSON.parse((pages[0] as { text: string }).text).records;
    assert.deepEqual(
      records.map((r: { body: string }) => r.body),
      Array.from({ length: 10 }, (_, i) => `r${i + 5}`),
    );
    const statuses = pages.map((p) => String(p.headers["x-cache-status"]));
    assert.equal(statuses.filter((s) => s === "MISS").length, 1, statuses.join(" "));
    assert.equal(await pageReads(gw, 200), before + 1, "the gateway answered one of them");
  });

  test("the same URL as an event stream or in base64 never gets the cached page", {
    skip,
  }, async () => {
    const { gw } = open as { gw: GatewayProcess };
    const front = (nginx as Nginx).bases[0] as string;
    const stream = await newStream(gw.base);
    await append(gw.base, stream, ["a", "b", "c"]);
    const path = `${stream}/records?seq_num=0&count=2`;
    const page = await get(front, path);
    assert.equal(page.status, 200, page.text);
    assert.equal((await get(front, path)).headers["x-cache-status"], "HIT");

    const base64 = await get(front, path, { "nova-format": "base64" });
    assert.deepEqual(
      JSON.parse(base64.text).records.map((r: { body: string }) => r.body),
      ["YQ==", "Yg=="],
    );

    const sameUrl = await get(front, path, { accept: "text/event-stream" });
    assert.equal(sameUrl.headers["content-type"], "text/event-stream");
    assert.notEqual(sameUrl.headers["x-cache-status"], "HIT");
    assert.match(sameUrl.text, /event: batch[\s\S]*"a"[\s\S]*"b"[\s\S]*event: done/);

    // Through nginx (x-accel-buffering: no) an event stream arrives as the gateway writes it:
    // the records there are, then one appended after it started.
    const controller = new AbortController();
    const deadline = setTimeout(
      () => controller.abort(new Error("the live record did not arrive within 15 s")),
      15_000,
    );
    const events = await request(`${front}${stream}/records?seq_num=0`, {
      headers: { accept: "text/event-stream" },
      signal: controller.signal,
    });
    try {
      assert.equal(events.headers["content-type"], "text/event-stream");
      let text = "";
      let appended = false;
      for await (const chunk of events.body) {
        text += String(chunk);
        if (!appended && text.includes('"c"')) {
          appended = true;
          await append(gw.base, stream, ["live"]);
        }
        if (text.includes('"live"')) break;
      }
      assert.ok(text.includes('"live"'), text);
    } finally {
      clearTimeout(deadline);
      events.body.on("error", () => {});
      controller.abort();
    }
  });

  test("a page read with a token is never served from the cache", { skip }, async () => {
    const { gw } = authed as { gw: GatewayProcess };
    const front = (nginx as Nginx).bases[1] as string;
    const issued = await request(`${gw.base}/v1/tokens`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ key_id: "reader", secret: SECRET, scope: "nova:*:*" }),
    });
    const token = ((await issued.body.json()) as { token: string }).token;
    const auth = { authorization: `Bearer ${token}` };
    const bucket = `nc-${process.pid}`;
    for (const [path, body] of [
      ["/v1/buckets", { name: bucket }],
      [`/v1/buckets/${bucket}/streams`, { key: "s" }],
      [`/v1/buckets/${bucket}/streams/s/records`, { records: [{ body: "x" }, { body: "y" }] }],
    ] as const) {
      const res = await request(gw.base + path, {
        method: "POST",
        headers: { ...auth, "content-type": "application/json" },
        body: JSON.stringify(body),
      });
      assert.ok(res.statusCode < 300, await res.body.text());
      await res.body.dump();
    }
    const path = `/v1/buckets/${bucket}/streams/s/records?seq_num=0&count=1`;
    const before = { ok: await pageReads(gw, 200), refused: await pageReads(gw, 401) };

    const withToken = await get(front, path, auth);
    assert.equal(withToken.status, 200, withToken.text);
    assert.equal(withToken.headers["cache-control"], "private, max-age=60");
    const withoutToken = await get(front, path);
    assert.equal(withoutToken.status, 401, withoutToken.text);
    const again = await get(front, path, auth);
    assert.equal(again.status, 200);
    assert.notEqual(again.headers["x-cache-status"], "HIT");

    const ok = (await pageReads(gw, 200)) - before.ok;
    assert.equal(ok, 2, "both token reads reached it");
    assert.equal((await pageReads(gw, 401)) - before.refused, 1, "so did the one without");
  });

  test("a page touching the tail is not kept: the next read shows an append", {
    skip,
  }, async () => {
    const { gw } = open as { gw: GatewayProcess };
    const front = (nginx as Nginx).bases[0] as string;
    const stream = await newStream(gw.base);
    await append(gw.base, stream, ["a"]);
    const path = `${stream}/records?seq_num=0`;
    const first = await get(front, path);
    assert.equal(first.headers["cache-control"], "no-store");
    assert.equal(JSON.parse(first.text).records.length, 1);
    await append(gw.base, stream, ["b"]);
    const second = await get(front, path);
    assert.equal(JSON.parse(second.text).records.length, 2, second.text);
  });

  test("Durable Streams: 100 clients reading one offset reach the gateway once", {
    skip,
  }, async () => {
    const { gw } = open as { gw: GatewayProcess };
    const front = (nginx as Nginx).bases[0] as string;
    const path = `/ds/v1/stream/cached-${process.pid}`;
    const put = await dsWrite(gw.base + path, "PUT", "settled history");
    assert.equal(put.statusCode, 201);
    const before = await metric(gw.base, "nova_gateway_requests_total", `${DS_ROUTE},status="200"`);

    const reads = await Promise.all(
      // A concrete offset: a page from the start (-1) is revalidated every time (a trim moves it).
      Array.from({ length: 100 }, () => get(front, `${path}?offset=${offsetOf(0n)}`)),
    );
    for (const read of reads) {
      assert.equal(read.status, 200);
      assert.equal(read.text, "settled history");
    }
    const statuses = reads.map((r) => String(r.headers["x-cache-status"]));
    assert.equal(statuses.filter((s) => s === "MISS").length, 1, statuses.join(" "));
    const after = await metric(gw.base, "nova_gateway_requests_total", `${DS_ROUTE},status="200"`);
    assert.equal(after, before + 1, "the gateway answered one of them");
  });

  test("Durable Streams: a read at the tail is not kept; the next read of it shows an append", {
    skip,
  }, async () => {
    const { gw } = open as { gw: GatewayProcess };
    const front = (nginx as Nginx).bases[0] as string;
    const path = `/ds/v1/stream/tail-${process.pid}`;
    const put = await dsWrite(gw.base + path, "PUT");
    const tail = String(put.headers["stream-next-offset"]);
    const empty = await get(front, `${path}?offset=${tail}`);
    assert.equal(empty.status, 200);
    assert.equal(empty.text, "");
    assert.equal(empty.headers["cache-control"], "no-store");
    const post = await dsWrite(gw.base + path, "POST", "new");
    assert.equal(post.statusCode, 204);
    const next = await get(front, `${path}?offset=${tail}`);
    assert.equal(next.text, "new");
  });
});
