// Several streams on one SSE response (GET /v1/subscribe) over a real socket, through the real
// fleet client, to a real star process: events name their stream, one Last-Event-ID resumes
// every stream with no gap and no duplicate, the streams ride on the same hubs as one-stream
// subscribers, and every bad request gets the contract's error with nothing else affected.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { EventSource } from "eventsource";
import type { Gateway } from "../harness/gateway.ts";
import { append, http, newStream } from "../harness/http.ts";
import { metric } from "../harness/metrics.ts";
import { type Stack, startStack } from "../harness/stack.ts";
import { waitFor } from "../harness/wait.ts";
import { closeSseAgent, openSse, readUntil, type SseEvent } from "./sse-client.ts";

let stack: Stack<Gateway>;
let gw: Gateway;

before(async () => {
  stack = await startStack("nova-sse-multiplex-", { gateway: { sseMaxStreams: 4 } });
  gw = stack.gw;
});
after(async () => {
  await stack?.close();
  await closeSseAgent();
});

/** `/v1/buckets/<b>/streams/<k>` as the `stream` parameter's `<b>/<k>`. */
const spec = (path: string) => path.replace(/^\/v1\/buckets\/([^/]+)\/streams\//, "$1/");
const subscribeUrl = (specs: string[], extra = "") =>
  `${gw.base}/v1/subscribe?${specs.map((s) => `stream=${encodeURIComponent(s)}`).join("&")}${extra}`;

/** [stream, seq_num, body] of every record in the batch events, in the order they came. */
function recordsByStream(events: SseEvent[]): [string, number, string][] {
  return events
    .filter((e) => e.event === "batch")
    .flatMap((e) => {
      const data = JSON.parse(e.data) as {
        stream: string;
        records: { seq_num: number; body: string }[];
      };
      return data.records.map((r) => [data.stream, r.seq_num, r.body] as [string, number, string]);
    });
}

const of = (records: [string, number, string][], stream: string) =>
  records.filter(([s]) => s === stream).map(([, seq, body]) => [seq, body]);

describe("a multiplexed subscription", () => {
  test("each stream from its own start, events naming it, pings with every tail, then live", async () => {
    const [a, b] = [await newStream(gw.base), await newStream(gw.base)];
    // A key that needs encoding: `;` and `/` are part of it.
    const bucket = spec(a).split("/")[0] as string;
    const key = "x;y/z";
    const created = await http(gw.base, "POST", `/v1/buckets/${bucket}/streams`, { key });
    assert.equal(created.status, 201, created.text);
    const c = `/v1/buckets/${bucket}/streams/${encodeURIComponent(key)}`;
    await append(gw.base, a, ["a0", "a1", "a2"]);
    await append(gw.base, b, ["b0", "b1"]);
    const specs = [
      `${spec(a)};seq_num=1`,
      `${spec(b)};tail_offset=1`,
      `${bucket}/${encodeURIComponent(key)}`,
    ];
    const sse = await openSse(subscribeUrl(specs));
    try {
      assert.equal(sse.status, 200);
      assert.equal(sse.headers["content-type"], "text/event-stream");
      const first = await readUntil(sse.events, (seen) => seen.some((e) => e.event === "ping"));
      const names = [spec(a), spec(b), `${bucket}/${key}`];
      const history = recordsByStream(first);
      assert.deepEqual(of(history, names[0] as string), [
        [1, "a1"],
        [2, "a2"],
      ]);
      assert.deepEqual(of(history, names[1] as string), [[1, "b1"]]);
      const ping = first.find((e) => e.event === "ping") as SseEvent;
      assert.deepEqual(
        Object.entries(JSON.parse(ping.data).tails).map(([n, t]) => [
          n,
          (t as { seq_num: number }).seq_num,
        ]),
        [
          [names[0], 3],
          [names[1], 2],
          [names[2], 0],
        ],
      );
      assert.equal(ping.id, "0:3,2,4;1:2,1,2;2:0,0,0");

      await append(gw.base, c, ["c0"]);
      const live = await readUntil(sse.events, (seen) => recordsByStream(seen).length === 1);
      assert.deepEqual(recordsByStream(live), [[names[2], 0, "c0"]]);
      assert.equal(live.at(-1)?.id, "0:3,2,4;1:2,1,2;2:1,1,2");
    } finally {
      sse.close();
    }
  });

  test("HEAD answers as GET would without a body, checking every stream, opening no session", async () => {
    const [a, b] = [await newStream(gw.base), await newStream(gw.base)];
    const head = (specs: string[]) =>
      fetch(subscribeUrl(specs), { method: "HEAD", headers: { accept: "text/event-stream" } });
    const ok = await head([spec(a), spec(b)]);
    assert.equal(ok.status, 200);
    assert.equal(ok.headers.get("content-type"), "text/event-stream");
    assert.equal(await ok.text(), "");
    const missing = await head([spec(a), `${spec(b).split("/")[0]}/nope`]);
    assert.equal(missing.status, 404);
    assert.equal((await head([`${spec(a)};seq_num=x`])).status, 400);
    assert.equal(await metric(gw.base, "nova_gateway_sessions", 'kind="sse"'), 0);
  });

  test("one ping once every stream has caught up, not one per stream", async () => {
    const streams = await Promise.all([0, 1, 2, 3].map(() => newStream(gw.base)));
    for (const [i, stream] of streams.entries()) await append(gw.base, stream, [`r${i}`]);
    const sse = await openSse(subscribeUrl(streams.map((s) => `${spec(s)};seq_num=0`)));
    try {
      assert.equal(sse.status, 200);
      const first = await readUntil(sse.events, (events) => events.some((e) => e.event === "ping"));
      // A record after it: whatever was written before it has come by then.
      await append(gw.base, streams[0] as string, ["live"]);
      const then = await readUntil(sse.events, (events) =>
        recordsByStream(events).some(([, , body]) => body === "live"),
      );
      assert.deepEqual(
        [...first, ...then].map((e) => e.event),
        ["retry", "batch", "batch", "batch", "batch", "ping", "batch"],
      );
    } finally {
      sse.close();
    }
  });

  test("one Last-Event-ID resumes every stream exactly; a stream whose count is met is done once", async () => {
    const streams = [await newStream(gw.base), await newStream(gw.base), await newStream(gw.base)];
    const names = streams.map(spec);
    const specs = names.map((n, i) => (i === 0 ? `${n};seq_num=0;count=3` : `${n};seq_num=0`));
    const got: [string, number, string][] = [];
    const dones: string[] = [];
    let lastId = "";
    for (let session = 0; session < 3; session++) {
      for (const s of streams) await append(gw.base, s, [`${session}-0`, `${session}-1`]);
      const sent = 2 * (session + 1);
      const total = 2 * sent + Math.min(3, sent);
      const sse = await openSse(subscribeUrl(specs), lastId ? { "last-event-id": lastId } : {});
      try {
        assert.equal(sse.status, 200);
        const before = got.length;
        const seen = await readUntil(
          sse.events,
          (e) => before + recordsByStream(e).length >= total,
        );
        got.push(...recordsByStream(seen));
        dones.push(...seen.filter((e) => e.event === "done").map((e) => JSON.parse(e.data).stream));
        lastId = seen.filter((e) => e.id !== undefined).at(-1)?.id as string;
      } finally {
        sse.close();
      }
    }
    const all = [0, 1, 2].flatMap((k) => [`${k}-0`, `${k}-1`]).map((body, seq) => [seq, body]);
    assert.deepEqual(of(got, names[0] as string), all.slice(0, 3));
    assert.deepEqual(of(got, names[1] as string), all);
    assert.deepEqual(of(got, names[2] as string), all);
    assert.deepEqual(dones, [names[0]]);
    assert.equal(lastId, "0:3,3,9;1:6,6,18;2:6,6,18");
  });

  test("readers of a stream share one upstream Subscribe, multiplexed or not", async () => {
    const [a, b] = [await newStream(gw.base), await newStream(gw.base)];
    await waitFor(
      async () => (await metric(gw.base, "nova_gateway_upstream_subscribe_calls")) === 0,
    );
    const url = subscribeUrl([spec(a), spec(b)]);
    const subs = [await openSse(url), await openSse(url), await openSse(`${gw.base}${a}/records`)];
    try {
      for (const sub of subs) await readUntil(sub.events, (e) => e.some((x) => x.event === "ping"));
      assert.equal(await metric(gw.base, "nova_gateway_upstream_subscribe_calls"), 2);
      await append(gw.base, b, ["shared"]);
      for (const sub of subs.slice(0, 2)) {
        const seen = await readUntil(sub.events, (e) => recordsByStream(e).length === 1);
        assert.deepEqual(recordsByStream(seen), [[spec(b), 0, "shared"]]);
      }
    } finally {
      for (const sub of subs) sub.close();
    }
  });

  test("the eventsource package follows every stream and keeps the multiplexed id", async () => {
    const [a, b] = [await newStream(gw.base), await newStream(gw.base)];
    const es = new EventSource(subscribeUrl([`${spec(a)};seq_num=0`, `${spec(b)};seq_num=0`]));
    const got: [string, number, string][] = [];
    let lastEventId = "";
    es.addEventListener("batch", (e) => {
      const data = JSON.parse(e.data);
      for (const r of data.records) got.push([data.stream, r.seq_num, r.body]);
      lastEventId = e.lastEventId;
    });
    try {
      await append(gw.base, a, ["a0"]);
      await append(gw.base, b, ["b0", "b1"]);
      await waitFor(() => got.length === 3);
      assert.deepEqual(of(got, spec(a)), [[0, "a0"]]);
      assert.deepEqual(of(got, spec(b)), [
        [0, "b0"],
        [1, "b1"],
      ]);
      assert.equal(lastEventId, "0:1,1,2;1:2,2,4");
    } finally {
      es.close();
    }
  });

  test("bad requests get the contract's error naming what is wrong, and affect nothing else", async () => {
    const [a, b] = [await newStream(gw.base), await newStream(gw.base)];
    const open = await openSse(subscribeUrl([spec(a), spec(b)]));
    try {
      await readUntil(open.events, (e) => e.some((x) => x.event === "ping"));
      const refused = async (url: string, headers: Record<string, string> = {}) => {
        const res = await openSse(url, headers);
        const body = JSON.parse(await res.text());
        return { status: res.status, body };
      };
      const bucket = spec(a).split("/")[0];
      const cases: [string, Record<string, string>, number, string, RegExp][] = [
        [
          subscribeUrl(["b1c/1", "b1c/2", "b1c/3", "b1c/4", "b1c/5"]),
          {},
          400,
          "bad_query",
          /^stream: names 5 streams; one subscription follows at most 4/,
        ],
        [
          subscribeUrl([spec(a), spec(b), spec(a)]),
          {},
          400,
          "bad_query",
          /^stream\[2\]: names ".*" again \(as stream\[0\]\)/,
        ],
        [
          subscribeUrl([`${spec(a)};wait=1`]),
          {},
          400,
          "bad_query",
          /^stream\[0\]\.wait: is not a stream option/,
        ],
        [
          subscribeUrl([spec(a), spec(b)]),
          { "last-event-id": "3,3,3" },
          400,
          "bad_header",
          /^last-event-id: has 1 entries, not one per stream of the 2/,
        ],
        [
          subscribeUrl([spec(a), spec(b)]),
          { "last-event-id": "0:1,1,1;2:1,1,1" },
          400,
          "bad_header",
          /^last-event-id: entry 1 must be "1:next,count,bytes"/,
        ],
        [
          subscribeUrl([spec(a)], "&last_event_id=0:x"),
          {},
          400,
          "bad_query",
          /^last_event_id: entry 0/,
        ],
        [`${gw.base}/v1/subscribe`, {}, 400, "bad_query", /stream/],
        [subscribeUrl([spec(a)], "&seq_num=0"), {}, 400, "bad_query", /seq_num/],
        [
          subscribeUrl([spec(a), `${bucket}/missing`]),
          {},
          404,
          "stream_not_found",
          /^[a-z0-9-]+\/missing: /,
        ],
      ];
      for (const [url, headers, status, code, message] of cases) {
        const res = await refused(url, headers);
        assert.equal(res.status, status, `${url}: ${JSON.stringify(res.body)}`);
        assert.equal(res.body.code, code, JSON.stringify(res.body));
        assert.match(res.body.message, message);
        assert.equal(typeof res.body.retryable, "boolean");
      }
      const missing = await refused(subscribeUrl([spec(a), `${bucket}/missing`]));
      assert.equal(missing.body.stream, `${bucket}/missing`);
      // The subscription that was open goes on, and nothing was appended by the refusals.
      await append(gw.base, a, ["after"]);
      const seen = await readUntil(open.events, (e) => recordsByStream(e).length === 1);
      assert.deepEqual(recordsByStream(seen), [[spec(a), 0, "after"]]);
    } finally {
      open.close();
    }
  });
});
