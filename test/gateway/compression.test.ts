// Compressed JSON responses over a real socket: every encoding decodes to the very bytes sent
// uncompressed, small bodies and event streams are never compressed, and --compression=off and
// --compress-min-bytes reach the process.
import assert from "node:assert/strict";
import { Readable } from "node:stream";
import { after, before, test } from "node:test";
import { brotliDecompressSync, gunzipSync, zstdDecompressSync } from "node:zlib";
import { request } from "undici";
import type { Gateway } from "../harness/gateway.ts";
import type { GatewayProcess } from "../harness/gateway-process.ts";
import { append, http, newStream } from "../harness/http.ts";
import { type Stack, startProcessStack, startStack } from "../harness/stack.ts";
import { parseSse } from "./sse-client.ts";

let stack: Stack<Gateway>;
let stream: string;

before(async () => {
  stack = await startStack("nova-compression-");
  stream = await newStream(stack.gw.base);
  // Log lines, as a page of a real stream might hold: about 20 KiB of JSON.
  await append(
    stack.gw.base,
    stream,
    Array.from({ length: 200 }, (_, i) => `{"level":"info","seq":${i},"msg":"request served"}`),
  );
});
after(() => stack?.close());

/** A GET with `accept-encoding`; the body as the bytes on the wire. */
async function raw(base: string, path: string, acceptEncoding?: string) {
  const res = await request(base + path, {
    headers: acceptEncoding === undefined ? {} : { "accept-encoding": acceptEncoding },
  });
  return {
    status: res.statusCode,
    headers: res.headers,
    body: Buffer.from(await res.body.arrayBuffer()),
  };
}

const decoders: Record<string, (b: Buffer) => Buffer> = {
  gzip: gunzipSync,
  br: brotliDecompressSync,
  zstd: zstdDecompressSync,
};

for (const [encoding, decode] of Object.entries(decoders)) {
  test(`a page asked for with ${encoding} decodes to the uncompressed page`, async () => {
    const path = `${stream}/records?seq_num=0`;
    const plain = await raw(stack.gw.base, path);
    assert.equal(plain.status, 200);
    assert.equal(plain.headers["content-encoding"], undefined);
    assert.equal(JSON.parse(plain.body.toString()).records.length, 200);
    const packed = await raw(stack.gw.base, path, encoding);
    assert.equal(packed.status, 200);
    assert.equal(packed.headers["content-encoding"], encoding);
    assert.match(String(packed.headers.vary), /accept-encoding/i);
    assert.ok(packed.body.length < plain.body.length / 4, `${packed.body.length} bytes`);
    assert.deepEqual(decode(packed.body), plain.body);
  });
}

test("the client's preference picks the encoding", async () => {
  const path = `${stream}/records?seq_num=0`;
  const res = await raw(stack.gw.base, path, "gzip;q=1, br;q=0.5, zstd;q=0.1");
  assert.equal(res.headers["content-encoding"], "gzip");
  const none = await raw(stack.gw.base, path, "identity");
  assert.equal(none.headers["content-encoding"], undefined);
});

test("a list is compressed too", async () => {
  const name = `list-${process.pid}`;
  assert.equal((await http(stack.gw.base, "POST", "/v1/buckets", { name })).status, 201);
  for (let i = 0; i < 40; i++) {
    const s = await http(stack.gw.base, "POST", `/v1/buckets/${name}/streams`, { key: `k${i}` });
    assert.equal(s.status, 201, s.text);
  }
  const path = `/v1/buckets/${name}/streams`;
  const plain = await raw(stack.gw.base, path);
  const packed = await raw(stack.gw.base, path, "br");
  assert.equal(packed.headers["content-encoding"], "br");
  assert.deepEqual(brotliDecompressSync(packed.body), plain.body);
});

test("a body under the floor is sent as it is", async () => {
  const res = await raw(stack.gw.base, `${stream}/records/tail`, "gzip, br, zstd");
  assert.equal(res.status, 200);
  assert.ok(res.body.length < 1024, `${res.body.length} bytes`);
  assert.equal(res.headers["content-encoding"], undefined);
  assert.equal(JSON.parse(res.body.toString()).tail.seq_num, 200);
});

test("an SSE subscription is never compressed, whatever the client accepts", async () => {
  const ac = new AbortController();
  const res = await request(`${stack.gw.base}${stream}/records?seq_num=0`, {
    headers: { accept: "text/event-stream", "accept-encoding": "gzip, br, zstd" },
    signal: ac.signal,
  });
  try {
    assert.equal(res.statusCode, 200);
    assert.equal(res.headers["content-type"], "text/event-stream");
    assert.equal(res.headers["content-encoding"], undefined);
    for await (const event of parseSse(res.body)) {
      if (event.event !== "batch") continue;
      assert.equal(JSON.parse(event.data).records[0].seq_num, 0);
      break;
    }
  } finally {
    ac.abort();
  }
});

test("an NDJSON append session is never compressed, whatever the client accepts", async () => {
  const res = await request(`${stack.gw.base}${stream}/records`, {
    method: "POST",
    headers: { "content-type": "application/x-ndjson", "accept-encoding": "gzip, br, zstd" },
    body: Readable.from(
      Array.from({ length: 50 }, () => `${JSON.stringify({ records: [{ body: "x" }] })}\n`),
    ),
  });
  const text = await res.body.text();
  assert.equal(res.statusCode, 200);
  assert.equal(res.headers["content-encoding"], undefined);
  assert.deepEqual(JSON.parse(text.trimEnd().split("\n").at(-1) as string), {
    end: { reason: "done", batches: 50 },
  });
});

test("--compression=off and --compress-min-bytes reach the gateway process", async () => {
  const stacks: Stack<GatewayProcess>[] = [];
  try {
    for (const args of [["--compression=off"], ["--compress-min-bytes", "1000000"]]) {
      const s = await startProcessStack("nova-compression-flag-", { gatewayArgs: args });
      stacks.push(s);
      const path = await newStream(s.gw.base);
      await append(
        s.gw.base,
        path,
        Array.from({ length: 200 }, (_, i) => `record ${i}`),
      );
      const res = await raw(s.gw.base, `${path}/records?seq_num=0`, "gzip");
      assert.equal(res.status, 200);
      assert.equal(res.headers["content-encoding"], undefined, args.join(" "));
      assert.equal(JSON.parse(res.body.toString()).records.length, 200);
    }
  } finally {
    for (const s of stacks) await s.close();
  }
});
