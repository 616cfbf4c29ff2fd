// What a raw-socket fuzz run sends on one connection: a few well-framed requests (valid ones of
// every kind, sessions included, and well-framed bad ones), pipelined, and sometimes a last one
// broken at the byte level (request line, headers, framing, truncation) after which nothing on
// the connection can be trusted.
import fc from "fast-check";

/** One request as bytes (latin1), and what the gateway must answer to it. */
export interface RawRequest {
  method: string;
  bytes: string;
  /** The status a valid request gets; `4xx` for one that is well framed but wrong. */
  expect: number | "4xx";
  /** Records a 200 answer to it appends to the watched stream (0: it appends nothing). */
  appends: number;
  /** An NDJSON session: its acks are lines of the body, not one ack. */
  session?: boolean;
}

/** A connection's script: `framed` requests, then perhaps one `broken`. */
export interface RawScript {
  framed: RawRequest[];
  broken?: { bytes: string; from: string; appends: number };
}

const CRLF = "\r\n";

function head(method: string, path: string, headers: [string, string][]): string {
  const lines = [
    `${method} ${path} HTTP/1.1`,
    "host: fuzz",
    ...headers.map(([n, v]) => `${n}: ${v}`),
  ];
  return lines.join(CRLF) + CRLF + CRLF;
}

/** A body framed by content-length, or chunked at the given cut points. */
function framed(
  method: string,
  path: string,
  headers: [string, string][],
  body: string,
  cuts: number[] | undefined,
): string {
  const bytes = Buffer.from(body, "utf8").toString("latin1");
  if (cuts === undefined) {
    return head(method, path, [...headers, ["content-length", String(bytes.length)]]) + bytes;
  }
  const points = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
  let chunks = "";
  let at = 0;
  for (const point of [...points, bytes.length]) {
    if (point > at) chunks += `${(point - at).toString(16)}${CRLF}${bytes.slice(at, point)}${CRLF}`;
    at = point;
  }
  return `${head(method, path, [...headers, ["transfer-encoding", "chunked"]])}${chunks}0${CRLF}${CRLF}`;
}

const framing = fc.option(fc.array(fc.nat(400), { maxLength: 4 }), { nil: undefined });
const recordBody = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: "grapheme", maxLength: 20 }),
);

/** Well-framed, valid requests against the stream at `stream` (which holds records already). */
function validRequest(stream: string): fc.Arbitrary<RawRequest> {
  const get = (path: string, headers: [string, string][] = []): RawRequest => ({
    method: "GET",
    bytes: head("GET", path, headers),
    expect: 200,
    appends: 0,
  });
  return fc.oneof(
    fc.constant(get("/livez")),
    fc.constant(get(`${stream}/records/tail`)),
    fc.constant(get(`${stream}/records?seq_num=0&count=2`)),
    fc.constant(get(`${stream}/records?seq_num=0&count=1`, [["accept", "text/event-stream"]])),
    fc.constant<RawRequest>({
      method: "HEAD",
      bytes: head("HEAD", `${stream}/records`, [["accept", "text/event-stream"]]),
      expect: 200,
      appends: 0,
    }),
    fc.tuple(fc.array(recordBody, { minLength: 1, maxLength: 3 }), framing).map(
      ([bodies, cuts]): RawRequest => ({
        method: "POST",
        bytes: framed(
          "POST",
          `${stream}/records`,
          [["content-type", "application/json"]],
          JSON.stringify({ records: bodies.map((body) => ({ body })) }),
          cuts,
        ),
        expect: 200,
        appends: bodies.length,
      }),
    ),
    fc
      .tuple(
        fc.array(fc.array(recordBody, { minLength: 1, maxLength: 2 }), {
          minLength: 1,
          maxLength: 3,
        }),
        fc.array(fc.nat(400), { maxLength: 4 }),
      )
      .map(
        ([lines, cuts]): RawRequest => ({
          method: "POST",
          bytes: framed(
            "POST",
            `${stream}/records`,
            [["content-type", "application/x-ndjson"]],
            lines
              .map((l) => `${JSON.stringify({ records: l.map((body) => ({ body })) })}\n`)
              .join(""),
            cuts,
          ),
          expect: 200,
          appends: lines.flat().length,
          session: true,
        }),
      ),
  );
}

/** Well-framed requests the gateway must refuse with a 4xx, appending nothing. */
function refusedRequest(stream: string): fc.Arbitrary<RawRequest> {
  const refused = (method: string, bytes: string): RawRequest => ({
    method,
    bytes,
    expect: "4xx",
    appends: 0,
  });
  const jsonPost = (body: string, type = "application/json") =>
    refused("POST", framed("POST", `${stream}/records`, [["content-type", type]], body, undefined));
  return fc.oneof(
    fc
      .constantFrom("/console/nope.js", "/v2", "/v1/buckets/%zz", `${stream}/nope`)
      .map((p) => refused("GET", head("GET", p, []))),
    fc.constant(refused("DELETE", head("DELETE", "/livez", []))),
    fc
      .string({ maxLength: 60 })
      .filter(notJson)
      .map((b) => jsonPost(b)),
    fc
      .jsonValue({ maxDepth: 2 })
      .filter((v) => !isAppend(v))
      .map((v) => jsonPost(JSON.stringify(v))),
    fc.constant(jsonPost('{"records":[{"body":"x"}]}', "text/plain")),
    fc.constant(jsonPost(`{"records":[{"body":"x","timestamp_ms":${2n ** 64n}}]}`)),
    fc.constant(refused("GET", head("GET", `${stream}/records?count=-1`, []))),
  );
}

function notJson(text: string): boolean {
  try {
    JSON.parse(text);
    return false;
  } catch {
    return true;
  }
}

function isAppend(value: unknown): boolean {
  return typeof value === "object" && value !== null && "records" in value;
}

/** Byte-level breakage: after it, the connection's framing is unknown. */
const breakage = fc.oneof(
  fc.nat().map((n) => (b: string) => b.slice(0, n % Math.max(1, b.length))),
  fc.tuple(fc.nat(), fc.constantFrom("\r", "\n", "\0", " ", ":", "\x7f", "\xff", "%", "\t")).map(
    ([n, c]) =>
      (b: string) =>
        replaceAt(b, n % Math.max(1, headEnd(b)), c),
  ),
  fc.tuple(fc.nat(), fc.string({ unit: "binary-ascii", maxLength: 12 })).map(
    ([n, s]) =>
      (b: string) =>
        insertAt(b, n % Math.max(1, headEnd(b)), s),
  ),
  fc
    .constantFrom(
      "GET  / HTTP/1.1",
      "GET / HTTP/1.0x",
      "G@T / HTTP/1.1",
      "GET /\0 HTTP/1.1",
      "GET",
      "GET / HTTP/2.0",
      `GET /${"a".repeat(20_000)} HTTP/1.1`,
    )
    .map((line) => (b: string) => line + b.slice(b.indexOf(CRLF))),
  fc
    .constantFrom(
      "content-length: 5\r\ncontent-length: 6",
      "content-length: -1",
      "content-length: 1e3",
      "content-length: 99999999999999999999",
      "transfer-encoding: gzip",
      "transfer-encoding: chunked\r\ncontent-length: 3",
      `x-big: ${"b".repeat(20_000)}`,
      Array.from({ length: 300 }, (_, i) => `x-${i}: ${i}`).join(CRLF),
      "bad header",
      " folded: line",
      "x:\x01y",
    )
    .map((header) => (b: string) => insertAt(b, b.indexOf(CRLF) + 2, header + CRLF)),
  fc
    .tuple(fc.nat(), fc.constantFrom("zz", "-1", "fffffffffffffffff", "", '1;ext="a', "0x10"))
    .map(([n, size]) => (b: string) => {
      const sizes = [...b.matchAll(/\r\n([0-9a-f]+)\r\n/g)];
      const hit = sizes[n % Math.max(1, sizes.length)];
      if (hit?.index === undefined) return b;
      return b.slice(0, hit.index + 2) + size + b.slice(hit.index + 2 + (hit[1]?.length ?? 0));
    }),
  fc.constant((b: string) => b.replaceAll(CRLF, "\n")),
);

function headEnd(bytes: string): number {
  const end = bytes.indexOf(CRLF + CRLF);
  return end < 0 ? bytes.length : end;
}
const replaceAt = (b: string, i: number, c: string) => b.slice(0, i) + c + b.slice(i + 1);
const insertAt = (b: string, i: number, s: string) => b.slice(0, i) + s + b.slice(i);

/**
 * Where a script names its stream: each run puts a new stream of its own in its place, so that
 * what one run may still append unseen cannot blur the next run's count.
 */
export const STREAM_MARK = "/v1/buckets/stream-mark/streams/stream-mark";

/** A connection's script: up to four framed requests and perhaps a broken one. */
export function rawScript(): fc.Arbitrary<RawScript> {
  const stream = STREAM_MARK;
  const request = fc.oneof(
    { weight: 3, arbitrary: validRequest(stream) },
    { weight: 2, arbitrary: refusedRequest(stream) },
  );
  return fc
    .record({
      framed: fc.array(request, { maxLength: 4 }),
      broken: fc.option(fc.tuple(request, breakage), { nil: undefined }),
    })
    .filter((s) => s.framed.length > 0 || s.broken !== undefined)
    .map(({ framed, broken }) =>
      broken === undefined
        ? { framed }
        : {
            framed,
            broken: {
              bytes: broken[1](broken[0].bytes),
              from: broken[0].bytes,
              appends: broken[0].appends,
            },
          },
    );
}
