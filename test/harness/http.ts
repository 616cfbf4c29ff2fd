// HTTP requests to a gateway under test, and the bucket-and-stream setup most tests begin with.
import assert from "node:assert/strict";
import { request } from "undici";

/** A request with an optional JSON body (a string is sent as is). */
export async function http(
  base: string,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
) {
  const res = await request(base + path, {
    method: method as "GET",
    headers: body === undefined ? headers : { "content-type": "application/json", ...headers },
    body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
  });
  const text = await res.body.text();
  const isJson = String(res.headers["content-type"] ?? "").includes("json");
  return {
    status: res.statusCode,
    headers: res.headers,
    text,
    json: isJson && text ? JSON.parse(text) : undefined,
  };
}

/** A GET whose body is kept as text (large pages compared byte for byte). */
export async function get(base: string, path: string) {
  const res = await request(base + path);
  return { status: res.statusCode, headers: res.headers, text: await res.body.text() };
}

let streams = 0;
/** A new bucket with one stream; returns the stream's path. */
export async function newStream(base: string, config: Record<string, unknown> = {}) {
  const name = `st-${process.pid}-${++streams}`;
  const b = await http(base, "POST", "/v1/buckets", { name });
  assert.equal(b.status, 201, b.text);
  const s = await http(base, "POST", `/v1/buckets/${name}/streams`, { key: "s", ...config });
  assert.equal(s.status, 201, s.text);
  return `/v1/buckets/${name}/streams/s`;
}

/** Appends one batch of text bodies; returns the ack. */
export async function append(base: string, stream: string, bodies: string[], query = "") {
  const res = await http(base, "POST", `${stream}/records${query}`, {
    records: bodies.map((body) => ({ body })),
  });
  assert.equal(res.status, 200, res.text);
  return res.json as { start: { seq_num: number }; end: { seq_num: number } };
}
