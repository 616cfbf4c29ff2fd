// SSE subscriptions over a real socket, through the real fleet client, to a real star process:
// curl-style (undici, any header) and the `eventsource` package (what a browser does).
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { EventSource } from "eventsource";
import type { Gateway } from "../harness/gateway.ts";
import { append, http, newStream } from "../harness/http.ts";
import { metric } from "../harness/metrics.ts";
import { type Stack, startStack } from "../harness/stack.ts";
import { waitFor } from "../harness/wait.ts";
import { closeSseAgent, openSse, readUntil, recordsOf } from "./sse-client.ts";

let stack: Stack<Gateway>;
let gw: Gateway;

before(async () => {
  stack = await startStack("nova-sse-");
  gw = stack.gw;
});
after(async () => {
  await stack?.close();
  await closeSseAgent();
});

const batches = (seen: { event: string }[]) => seen.filter((e) => e.event === "batch").length;

describe("curl-style clients", () => {
  test("catch-up, the caught-up ping, then live records; headers and ids as the contract says", async () => {
    const s = await newStream(gw.base);
    await append(gw.base, s, ["a", "bb"]);
    const sse = await openSse(`${gw.base}${s}/records?seq_num=0`);
    try {
      assert.equal(sse.status, 200);
      assert.equal(sse.headers["content-type"], "text/event-stream");
      assert.equal(sse.headers["cache-control"], "no-cache, no-transform");
      assert.equal(sse.headers["x-accel-buffering"], "no");
      assert.equal(sse.headers["content-encoding"], undefined);
      // The stream owns its HTTP/1.1 connection to its end (parser-release.ts).
      assert.equal(sse.headers.connection, "close");
      assert.equal(sse.headers["keep-alive"], undefined);
      const first = await readUntil(sse.events, (seen) => seen.some((e) => e.event === "ping"));
      assert.equal(first[0]?.event, "retry");
      assert.ok((first[0]?.retry ?? 0) > 0);
      assert.deepEqual(recordsOf(first), [
        [0, "a"],
        [1, "bb"],
      ]);
      assert.equal(first.find((e) => e.event === "batch")?.id, "1,2,3");
      const ping = JSON.parse(first.at(-1)?.data ?? "");
      assert.equal(ping.tail.seq_num, 2);
      assert.ok(ping.timestamp_ms > 0);

      await append(gw.base, s, ["ccc"]);
      const live = await readUntil(sse.events, (seen) => batches(seen) === 1);
      assert.deepEqual(recordsOf(live), [[2, "ccc"]]);
      assert.equal(live.at(-1)?.id, "2,3,6");
    } finally {
      sse.close();
    }
  });

  test("three successive resumes with a count bound deliver exactly count, then 204", async () => {
    const s = await newStream(gw.base);
    await append(gw.base, s, ["0", "1", "2"]);
    const url = `${gw.base}${s}/records?seq_num=0&count=10`;
    const delivered: [number, string][] = [];

    // Session 1: the history there is, then the client goes away.
    let sse = await openSse(url);
    let seen = await readUntil(sse.events, (e) => recordsOf(e).length === 3);
    delivered.push(...recordsOf(seen));
    let lastId = seen.filter((e) => e.event === "batch").at(-1)?.id as string;
    assert.equal(lastId, "2,3,3");
    sse.close();

    // Session 2, resumed with ?last_event_id=: four more, live.
    await append(gw.base, s, ["3", "4", "5", "6"]);
    sse = await openSse(`${url}&last_event_id=${lastId}`);
    seen = await readUntil(sse.events, (e) => recordsOf(e).length === 4);
    delivered.push(...recordsOf(seen));
    lastId = seen.filter((e) => e.event === "batch").at(-1)?.id as string;
    assert.equal(lastId, "6,7,7");
    sse.close();

    // Session 3, resumed with Last-Event-ID: only 3 of these 5 are still owed.
    await append(gw.base, s, ["7", "8", "9", "10", "11"]);
    sse = await openSse(url, { "last-event-id": lastId });
    seen = await readUntil(sse.events);
    delivered.push(...recordsOf(seen));
    assert.deepEqual(
      seen.slice(-1).map((e) => [e.event, JSON.parse(e.data)]),
      [
        [
          "done",
          {
            next: {
              seq_num: 10,
              timestamp_ms: JSON.parse(seen.at(-2)?.data ?? "").records.at(-1).timestamp_ms,
            },
          },
        ],
      ],
    );
    lastId = seen.filter((e) => e.event === "batch").at(-1)?.id as string;
    assert.equal(lastId, "9,10,10");

    assert.deepEqual(
      delivered,
      Array.from({ length: 10 }, (_, i) => [i, String(i)]),
    );
    const failedBefore = await metric(gw.base, "nova_gateway_requests_total", 'status="500"');
    const met = await openSse(url, { "last-event-id": lastId });
    assert.equal(met.status, 204);
    await met.text();
    // The 204 is the request's one answer: no 500 counted (or logged) for it after.
    await waitFor(
      async () => (await metric(gw.base, "nova_gateway_requests_total", 'status="204"')) > 0,
    );
    assert.equal(
      await metric(gw.base, "nova_gateway_requests_total", 'status="500"'),
      failedBefore,
    );
  });

  test("errors known before the first byte are plain HTTP errors", async () => {
    const s = await newStream(gw.base);
    await append(gw.base, s, ["x"]);
    const cases: [string, Record<string, string>, number, string][] = [
      [`${s.replace(/\/s$/, "/missing")}/records`, {}, 404, "stream_not_found"],
      [`${s}/records?seq_num=5`, {}, 416, "range_not_satisfiable"],
      [`${s}/records`, { "last-event-id": "nope" }, 400, "bad_header"],
      [`${s}/records?last_event_id=1,2`, {}, 400, "bad_query"],
      [`${s}/records?format=hex`, {}, 400, "bad_query"],
      [`/v1/buckets/Bad_Name/streams/s/records`, {}, 400, "bad_path"],
    ];
    for (const [path, headers, status, code] of cases) {
      const res = await openSse(gw.base + path, headers);
      const text = await res.text();
      assert.equal(res.status, status, `${path}: ${text}`);
      assert.equal(JSON.parse(text).code, code, path);
    }
    const beyond = await openSse(`${gw.base}${s}/records?seq_num=5`);
    assert.equal(JSON.parse(await beyond.text()).tail.seq_num, 1);
    // clamp=true reads from the tail instead.
    const clamped = await openSse(`${gw.base}${s}/records?seq_num=5&clamp=true`);
    const seen = await readUntil(clamped.events, (e) => e.some((x) => x.event === "ping"));
    assert.equal(JSON.parse(seen.at(-1)?.data ?? "").tail.seq_num, 1);
    // From there on it gets what is appended next: seq 1, not 5 and after.
    await append(gw.base, s, ["next"]);
    const batch = await readUntil(clamped.events, (e) => e.some((x) => x.event === "batch"));
    assert.deepEqual(recordsOf(batch), [[1, "next"]]);
    clamped.close();
  });

  test("a record that is not UTF-8 is 422 before the first byte, an error event after it", async () => {
    const s = await newStream(gw.base);
    const bad = Buffer.from([0xff, 0xfe]).toString("base64");
    const ok = Buffer.from("fine").toString("base64");
    const res = await http(gw.base, "POST", `${s}/records?format=base64`, {
      records: [{ body: ok }, { body: bad }],
    });
    assert.equal(res.status, 200, res.text);
    const first = await openSse(`${gw.base}${s}/records?seq_num=1`);
    assert.equal(first.status, 422);
    assert.equal(JSON.parse(await first.text()).code, "not_utf8");

    const later = await openSse(`${gw.base}${s}/records?seq_num=0`);
    const seen = await readUntil(later.events);
    assert.deepEqual(recordsOf(seen), [[0, "fine"]]);
    const error = JSON.parse(seen.at(-1)?.data ?? "");
    assert.equal(seen.at(-1)?.event, "error");
    assert.equal(error.code, "not_utf8");
    assert.equal(error.seq_num, 1);
    assert.equal(error.last_event_id, "0,1,4");

    const b64 = await openSse(`${gw.base}${s}/records?seq_num=0&format=base64&count=2`);
    assert.deepEqual(recordsOf(await readUntil(b64.events)), [
      [0, ok],
      [1, bad],
    ]);
  });

  test("until_ms, bytes and wait end the session with done", async () => {
    const s = await newStream(gw.base, { timestamping_mode: "TIMESTAMPING_MODE_CLIENT_REQUIRE" });
    for (const t of [10, 20, 30, 40]) {
      const res = await http(gw.base, "POST", `${s}/records`, {
        records: [{ body: "abcd", timestamp_ms: t }],
      });
      assert.equal(res.status, 200, res.text);
    }

    const until = await readUntil(
      (await openSse(`${gw.base}${s}/records?seq_num=0&until_ms=30`)).events,
    );
    assert.deepEqual(
      recordsOf(until).map(([seq]) => seq),
      [0, 1],
    );
    assert.deepEqual(JSON.parse(until.at(-1)?.data ?? ""), {
      next: { seq_num: 2, timestamp_ms: 20 },
    });

    const bytes = await readUntil(
      (await openSse(`${gw.base}${s}/records?seq_num=0&bytes=9`)).events,
    );
    assert.deepEqual(
      recordsOf(bytes).map(([seq]) => seq),
      [0, 1],
    );
    assert.equal(bytes.at(-1)?.event, "done");

    const wait = await readUntil((await openSse(`${gw.base}${s}/records?seq_num=3&wait=1`)).events);
    assert.deepEqual(
      wait.map((e) => e.event),
      ["retry", "batch", "ping", "done"],
    );
    assert.deepEqual(JSON.parse(wait.at(-1)?.data ?? ""), {
      next: { seq_num: 4, timestamp_ms: 40 },
    });

    // A resume past until_ms has nothing left to deliver: 204.
    const after = await openSse(`${gw.base}${s}/records?until_ms=30`, { "last-event-id": "1,2,8" });
    assert.equal(after.status, 204);
    await after.text();
  });

  test("the upstream call ends once the clients go away (no leaked calls)", async () => {
    const s = await newStream(gw.base);
    const calls = () => metric(gw.base, "nova_gateway_upstream_subscribe_calls");
    // The hubs of earlier tests outlive their last reader by the hub linger: none may be counted.
    await waitFor(async () => (await calls()) === 0, {
      timeoutMs: 30_000,
      message: "earlier upstream calls to end",
    });
    const open = await Promise.all(
      Array.from({ length: 5 }, () => openSse(`${gw.base}${s}/records?access_token=t0k3n`)),
    );
    try {
      for (const sse of open) {
        await readUntil(sse.events, (e) => e.some((x) => x.event === "ping"));
      }
      // The five share their stream's hub: one upstream call (test/gateway/hub.test.ts).
      assert.equal(await calls(), 1);
      assert.equal(await metric(gw.base, "nova_gateway_sessions", 'kind="sse"'), 5);
    } finally {
      for (const sse of open) sse.close();
    }
    await waitFor(async () => (await calls()) === 0, {
      message: "the upstream Subscribe calls to end",
    });
    await waitFor(async () => (await metric(gw.base, "nova_gateway_sessions", 'kind="sse"')) === 0);
  });

  test("1000 concurrent subscribers on one stream each receive every record", async () => {
    const s = await newStream(gw.base);
    const subscribers = 1000;
    const total = 50;
    const open = await Promise.all(
      Array.from({ length: subscribers }, () =>
        openSse(`${gw.base}${s}/records?seq_num=0&count=${total}`),
      ),
    );
    const received = open.map((sse) => readUntil(sse.events).then(recordsOf));
    for (let i = 0; i < total; i += 5) {
      await append(
        gw.base,
        s,
        Array.from({ length: 5 }, (_, j) => `r${i + j}`),
      );
    }
    const expected = Array.from({ length: total }, (_, i) => [i, `r${i}`]);
    const all = await Promise.all(received);
    for (const [i, got] of all.entries()) assert.deepEqual(got, expected, `subscriber ${i}`);
    await waitFor(
      async () => (await metric(gw.base, "nova_gateway_upstream_subscribe_calls")) === 0,
      // The hub lingers after its last reader; a loaded machine takes its time closing 1000.
      { timeoutMs: 30_000, message: "every upstream call to end" },
    );
    // Those 1000 Subscribes were cancelled at once, an RST_STREAM each: past its rapid-reset
    // limit a star ends that connection with GOAWAY INTERNAL_ERROR. Other calls use another
    // connection (src/gateway/upstream/channel-pool.ts) and must not notice.
    const after = await newStream(gw.base);
    for (let i = 0; i < 20; i++) await append(gw.base, after, [`x${i}`]);
  });
});

describe("the eventsource package", () => {
  test("catch-up then live, in order, with the ids EventSource keeps", async () => {
    const s = await newStream(gw.base);
    await append(gw.base, s, ["a", "b"]);
    const es = new EventSource(`${gw.base}${s}/records?seq_num=0`);
    const got: string[] = [];
    let lastId = "";
    let pings = 0;
    es.addEventListener("batch", (e) => {
      for (const r of JSON.parse(e.data).records) got.push(r.body);
      lastId = e.lastEventId;
    });
    es.addEventListener("ping", () => pings++);
    try {
      await waitFor(() => got.length === 2 && pings === 1, { message: "catch-up" });
      await append(gw.base, s, ["c"]);
      await waitFor(() => got.length === 3, { message: "the live record" });
      assert.deepEqual(got, ["a", "b", "c"]);
      assert.equal(lastId, "2,3,3");
    } finally {
      es.close();
    }
  });

  test("after done, the reconnect gets 204 and EventSource stops: exactly count records", async () => {
    const s = await newStream(gw.base);
    await append(gw.base, s, ["1", "2", "3"]);
    const es = new EventSource(`${gw.base}${s}/records?seq_num=0&count=5`);
    const got: string[] = [];
    let done = 0;
    es.addEventListener("batch", (e) => {
      for (const r of JSON.parse(e.data).records) got.push(r.body);
    });
    es.addEventListener("done", () => done++);
    try {
      await waitFor(() => got.length === 3);
      await append(gw.base, s, ["4", "5", "6", "7"]);
      await waitFor(() => es.readyState === EventSource.CLOSED, {
        message: "EventSource to stop after the 204",
        timeoutMs: 20_000,
      });
      assert.deepEqual(got, ["1", "2", "3", "4", "5"]);
      assert.equal(done, 1);
    } finally {
      es.close();
    }
  });
});
