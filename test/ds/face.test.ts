// What the Durable Streams face adds to the protocol's own suite: nova's error body on every
// refusal, nothing left behind by a refused PUT, forks, the face's bucket
// made on first use, streams shared with nova's own API, and one gateway seeing what another
// wrote (the face keeps nothing of a stream in a gateway's memory).
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { request } from "undici";
import { CURSOR_EPOCH_MS, CURSOR_INTERVAL_MS } from "../../src/gateway/ds/cursor.ts";
import { offsetOf } from "../../src/gateway/ds/offsets.ts";
import { closeSseAgent, openSse, readUntil, type SseEvent } from "../gateway/sse-client.ts";
import { type Gateway, inProcessGateway } from "../harness/gateway.ts";
import { metric } from "../harness/metrics.ts";
import { openRaw, parseAnswer } from "../harness/raw-socket.ts";
import { type StarProcess, startStarProcess } from "../harness/star-process.ts";
import { waitFor } from "../harness/wait.ts";

const DS = { bucket: "ds-face", longPollMs: 1000, sseCloseS: 60 };

describe("the Durable Streams face", () => {
  let star: StarProcess | undefined;
  let gw: Gateway | undefined;
  let other: Gateway | undefined;
  let dir: string | undefined;
  const url = (path: string, g = gw) => `${(g as Gateway).base}/ds/v1/stream/${path}`;

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), "nova-ds-face-"));
    star = await startStarProcess(["--data-dir", dir]);
    gw = await inProcessGateway([star.address], { ds: DS });
    other = await inProcessGateway([star.address], { ds: DS });
  });
  after(async () => {
    await closeSseAgent();
    await gw?.close();
    await other?.close();
    star?.client.close();
    await star?.proc.kill("SIGTERM");
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  const longPolls = () => metric((gw as Gateway).base, "nova_gateway_sessions", 'kind="long_poll"');

  async function refusal(res: Response, status: number, code: string, field?: string) {
    assert.equal(res.status, status);
    assert.match(res.headers.get("content-type") ?? "", /^application\/json/);
    const body = (await res.json()) as { code: string; message: string; retryable: boolean };
    assert.equal(body.code, code, body.message);
    assert.equal(typeof body.retryable, "boolean");
    if (field) assert.ok(body.message.startsWith(`${field}: `), body.message);
    return body;
  }

  test("the first PUT makes the face's bucket; the stream is nova's stream of that key", async () => {
    const put = await fetch(url("made/here"), {
      method: "PUT",
      headers: { "content-type": "text/plain" },
      body: "hello",
    });
    assert.equal(put.status, 201);
    assert.equal(put.headers.get("stream-next-offset"), "0000000000000001_0000000000000000");
    const nova = await fetch(
      `${(gw as Gateway).base}/v1/buckets/ds-face/streams/${encodeURIComponent("made/here")}/records?seq_num=0`,
    );
    assert.equal(nova.status, 200);
    const page = (await nova.json()) as { records: { body: string }[] };
    assert.deepEqual(
      page.records.map((r) => r.body),
      ["hello"],
    );
  });

  test("another gateway sees the content type, expiry, closing and producers one gateway wrote", async () => {
    await fetch(url("shared"), {
      method: "PUT",
      headers: { "content-type": "application/json", "stream-ttl": "3600" },
    });
    const stamp = { "producer-id": "p", "producer-epoch": "0", "producer-seq": "0" };
    const first = await fetch(url("shared"), {
      method: "POST",
      headers: { "content-type": "application/json", ...stamp },
      body: "[1,2]",
    });
    assert.equal(first.status, 200);
    const retry = await fetch(url("shared", other), {
      method: "POST",
      headers: { "content-type": "application/json", ...stamp },
      body: "[1,2]",
    });
    assert.equal(retry.status, 204, "the retry through another gateway is a duplicate");
    const mismatch = await fetch(url("shared", other), {
      method: "POST",
      headers: { "content-type": "text/plain" },
      body: "x",
    });
    await refusal(mismatch, 409, "content_type_mismatch");
    await fetch(url("shared"), { method: "POST", headers: { "stream-closed": "true" } });
    const head = await fetch(url("shared", other), { method: "HEAD" });
    assert.equal(head.headers.get("content-type"), "application/json");
    assert.equal(head.headers.get("stream-ttl"), "3600");
    assert.equal(head.headers.get("stream-closed"), "true");
    assert.equal(head.headers.get("stream-next-offset"), "0000000000000002_0000000000000000");
    assert.deepEqual(await (await fetch(url("shared", other))).json(), [1, 2]);
  });

  test("a producer header sent twice is 400 naming it; nothing is appended", async () => {
    await fetch(url("twice"), { method: "PUT", headers: { "content-type": "text/plain" } });
    const res = await request(url("twice"), {
      method: "POST",
      headers: [
        ...["content-type", "text/plain", "producer-id", "q", "producer-id", "r"],
        ...["producer-epoch", "0", "producer-seq", "0"],
      ],
      body: "x",
    });
    assert.equal(res.statusCode, 400);
    assert.match(await res.body.text(), /producer-id/);
    assert.equal(await (await fetch(`${url("twice")}?offset=-1`)).text(), "");
  });

  test("a close-only request from a producer's fenced epoch is 403; the stream stays open", async () => {
    await fetch(url("zombie"), { method: "PUT", headers: { "content-type": "text/plain" } });
    const stamp = (epoch: number, seq: number) => ({
      "producer-id": "z",
      "producer-epoch": String(epoch),
      "producer-seq": String(seq),
    });
    const appended = await fetch(url("zombie"), {
      method: "POST",
      headers: { "content-type": "text/plain", ...stamp(2, 0) },
      body: "one",
    });
    assert.equal(appended.status, 200);
    const zombie = await fetch(url("zombie"), {
      method: "POST",
      headers: { "stream-closed": "true", ...stamp(1, 0) },
    });
    assert.equal(zombie.status, 403);
    assert.equal(zombie.headers.get("producer-epoch"), "2");
    const open = await fetch(`${url("zombie")}?offset=-1`);
    assert.deepEqual([await open.text(), open.headers.get("stream-closed")], ["one", null]);
    const closed = await fetch(url("zombie"), {
      method: "POST",
      headers: { "stream-closed": "true", ...stamp(2, 1) },
    });
    assert.deepEqual([closed.status, closed.headers.get("stream-closed")], [204, "true"]);
  });

  test("a page's plain and gzip copies share a weak ETag, and both say Vary: accept-encoding", async () => {
    const text = { "content-type": "text/plain" };
    await fetch(url("encodings"), { method: "PUT", headers: text });
    await fetch(url("encodings"), { method: "POST", headers: text, body: "x".repeat(4000) });
    const page = `${url("encodings")}?offset=${offsetOf(0n)}`;
    const gzip = await request(page, { headers: { "accept-encoding": "gzip" } });
    const plain = await request(page);
    assert.equal(gzip.headers["content-encoding"], "gzip");
    assert.equal(plain.headers["content-encoding"], undefined);
    assert.equal((await plain.body.text()).length, 4000);
    await gzip.body.dump();
    for (const res of [gzip, plain]) {
      assert.match(String(res.headers.vary), /accept-encoding/i);
      assert.match(String(res.headers.vary), /authorization/i);
      assert.match(String(res.headers.etag), /^W\/"/);
    }
    assert.equal(gzip.headers.etag, plain.headers.etag);
    const revalidated = await request(page, {
      headers: { "if-none-match": String(plain.headers.etag) },
    });
    assert.equal(revalidated.statusCode, 304);
    await revalidated.body.dump();
  });

  test("a page from the start is revalidated each time: a trim changes its ETag; others keep", async () => {
    await fetch(url("trimmed"), { method: "PUT", headers: { "content-type": "text/plain" } });
    for (const body of ["a", "b", "c"]) {
      await fetch(url("trimmed"), {
        method: "POST",
        headers: { "content-type": "text/plain" },
        body,
      });
    }
    const first = await fetch(`${url("trimmed")}?offset=-1`);
    assert.equal(await first.text(), "abc");
    const etag = first.headers.get("etag") as string;
    const control = first.headers.get("cache-control");
    // Where the stream starts moves with a trim, and a stream made again at the path is another.
    assert.equal(control, "public, no-cache");
    const later = await fetch(`${url("trimmed")}?offset=${offsetOf(1n)}`);
    assert.equal(await later.text(), "bc");
    assert.match(
      later.headers.get("cache-control") ?? "",
      /^public, max-age=\d+, stale-while-revalidate=/,
    );
    assert.match(first.headers.get("vary") ?? "", /authorization/i);
    const again = await fetch(`${url("trimmed")}?offset=-1`, {
      headers: { "if-none-match": etag },
    });
    assert.equal(again.status, 304);
    assert.equal(again.headers.get("cache-control"), control);
    assert.match(again.headers.get("vary") ?? "", /authorization/i);
    const trim = await fetch(`${(gw as Gateway).base}/v1/buckets/ds-face/streams/trimmed/trim`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: '{"seq_num":1}',
    });
    assert.equal(trim.status, 204);
    const after = await fetch(`${url("trimmed")}?offset=-1`, {
      headers: { "if-none-match": etag },
    });
    assert.equal(after.status, 200);
    assert.equal(await after.text(), "bc");
    assert.notEqual(after.headers.get("etag"), etag);
  });

  test("a read from an offset a trim took is 410 Gone, in every mode, naming where it starts", async () => {
    await fetch(url("trimmed-away"), { method: "PUT", headers: { "content-type": "text/plain" } });
    for (const body of ["a", "b", "c", "d"]) {
      await fetch(url("trimmed-away"), {
        method: "POST",
        headers: { "content-type": "text/plain" },
        body,
      });
    }
    const trim = (seq: number) =>
      fetch(`${(gw as Gateway).base}/v1/buckets/ds-face/streams/trimmed-away/trim`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ seq_num: seq }),
      });
    assert.equal((await trim(2)).status, 204);
    // A client that read "a" and comes back for what follows: "b" is gone, and it is told so.
    for (const mode of ["", "&live=long-poll", "&live=sse"]) {
      const res = await fetch(`${url("trimmed-away")}?offset=${offsetOf(1n)}${mode}`);
      const body = await refusal(res, 410, "gone");
      assert.ok(body.message.includes(offsetOf(2n)), body.message);
      assert.equal(res.headers.get("cache-control"), "no-store");
    }
    const kept = await fetch(`${url("trimmed-away")}?offset=${offsetOf(2n)}`);
    assert.equal(await kept.text(), "cd");
    assert.equal(await (await fetch(`${url("trimmed-away")}?offset=-1`)).text(), "cd");
    // Trimmed to the tail: an empty page below it is the same 410, in every mode.
    assert.equal((await trim(4)).status, 204);
    for (const mode of ["", "&live=long-poll", "&live=sse"]) {
      const res = await fetch(`${url("trimmed-away")}?offset=${offsetOf(3n)}${mode}`);
      await refusal(res, 410, "gone");
    }
    const atTail = await fetch(`${url("trimmed-away")}?offset=${offsetOf(4n)}`);
    assert.equal(atTail.status, 200);
    assert.equal(atTail.headers.get("stream-up-to-date"), "true");
  });

  test("an SSE read's cursors stay at the interval or one jitter past the echoed cursor", async () => {
    await fetch(url("cursors"), { method: "PUT", headers: { "content-type": "text/plain" } });
    const interval = () => Math.floor((Date.now() - CURSOR_EPOCH_MS) / CURSOR_INTERVAL_MS);
    const read = async (query: string) => {
      const sse = await openSse(`${url("cursors")}?offset=now&live=sse${query}`);
      try {
        const cursors: number[] = [];
        const append = (i: number) =>
          fetch(url("cursors"), {
            method: "POST",
            headers: { "content-type": "text/plain" },
            body: `m${i}`,
          });
        // Each append's control event, one at a time: 12 events on one connection.
        for (let i = 0; i < 12; i++) {
          const seen = await readUntil(sse.events, (e) => e.some((x) => x.event === "control"));
          const control = seen.filter((x) => x.event === "control").at(-1) as SseEvent;
          cursors.push(Number(JSON.parse(control.data).streamCursor));
          await append(i);
        }
        return cursors;
      } finally {
        sse.close();
      }
    };
    const before = interval();
    const plain = await read("");
    // No cursor echoed: each event says the current interval.
    for (const c of plain) assert.ok(c >= before && c <= interval(), `${plain}`);
    // A cursor echoed at the current interval: one jitter past it at most (3600 s of
    // intervals), the same or rising within the session, not more with every event.
    const echoed = interval();
    const jittered = await read(`&cursor=${echoed}`);
    const most = echoed + 1 + 3_600_000 / CURSOR_INTERVAL_MS;
    for (const c of jittered) assert.ok(c > echoed && c <= most, `${jittered}`);
    assert.deepEqual(
      jittered,
      [...jittered].sort((a, b) => a - b),
    );
  });

  test("a long-poll answered by the append that closed the stream carries Stream-Closed", async () => {
    await fetch(url("closing"), { method: "PUT", headers: { "content-type": "text/plain" } });
    const before = await longPolls();
    const polling = fetch(`${url("closing")}?offset=-1&live=long-poll`);
    await waitFor(async () => (await longPolls()) > before, { message: "the long-poll parked" });
    const closed = await fetch(url("closing"), {
      method: "POST",
      headers: { "content-type": "text/plain", "stream-closed": "true" },
      body: "last",
    });
    assert.equal(closed.status, 204);
    const res = await polling;
    assert.equal(res.status, 200);
    assert.equal(await res.text(), "last");
    assert.equal(res.headers.get("stream-closed"), "true");
    assert.equal(res.headers.get("stream-up-to-date"), "true");
  });

  test("long-poll answers with data cache as catch-up reads do, with an ETag; at now, never", async () => {
    await fetch(url("polled"), { method: "PUT", headers: { "content-type": "text/plain" } });
    const append = (body: string) =>
      fetch(url("polled"), { method: "POST", headers: { "content-type": "text/plain" }, body });
    // Each poll waits for an append made once it is waiting (the gateway's long-poll count).
    const poll = async (query: string) => {
      const before = await longPolls();
      const res = fetch(`${url("polled")}?${query}&live=long-poll`);
      await waitFor(async () => (await longPolls()) > before, { message: "the poll to wait" });
      // Wrapped: an async function returning the promise itself would wait for the answer.
      return { res };
    };

    const fromStart = await poll("offset=-1");
    await append("a");
    const first = await fromStart.res;
    assert.equal(await first.text(), "a");
    assert.equal(first.headers.get("cache-control"), "public, no-cache");
    const etag = first.headers.get("etag");
    assert.ok(etag);
    const at = await poll(`offset=${offsetOf(1n)}`);
    await append("b");
    const second = await at.res;
    assert.equal(await second.text(), "b");
    assert.match(second.headers.get("cache-control") ?? "", /^public, max-age=\d+/);
    assert.ok(second.headers.get("etag"));
    const again = await fetch(`${url("polled")}?offset=-1&live=long-poll`, {
      headers: { "if-none-match": etag },
    });
    assert.equal(again.status, 200, "the page from the start grew: a new ETag");
    assert.notEqual(again.headers.get("etag"), etag);
    await again.body?.cancel();
    const now = await poll("offset=now");
    await append("c");
    const fromNow = await now.res;
    assert.equal(await fromNow.text(), "c");
    assert.equal(fromNow.headers.get("cache-control"), "no-store");
    assert.equal(fromNow.headers.get("etag"), null);
  });

  test("a PUT of another configuration is 409 naming what differs", async () => {
    const put = (headers: Record<string, string>) =>
      fetch(url("configured"), {
        method: "PUT",
        headers: { "content-type": "text/plain", ...headers },
      });
    assert.equal((await put({ "stream-ttl": "60" })).status, 201);
    assert.equal((await put({ "stream-ttl": "60" })).status, 200);
    const ttl = await refusal(await put({ "stream-ttl": "120" }), 409, "already_exists");
    assert.match(ttl.message, /Stream-TTL 60 s, not 120 s/);
    const type = await refusal(
      await put({ "content-type": "application/json", "stream-ttl": "60" }),
      409,
      "already_exists",
    );
    assert.match(type.message, /content type "text\/plain", not "application\/json"/);
    assert.doesNotMatch(type.message, /Stream-TTL/);
  });

  test("a refused PUT leaves no stream behind", async () => {
    const bad = await fetch(url("never"), {
      method: "PUT",
      headers: { "content-type": "application/json" },
      body: "{not json",
    });
    await refusal(bad, 400, "bad_json");
    const ttl = await fetch(url("never"), {
      method: "PUT",
      headers: { "content-type": "text/plain", "stream-ttl": "1.5" },
    });
    await refusal(ttl, 400, "bad_header", "stream-ttl");
    const head = await fetch(url("never"), { method: "HEAD" });
    assert.equal(head.status, 404);
    // A JSON message is one record, at most 1 MiB.
    const huge = await fetch(url("too-big"), {
      method: "PUT",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(["x".repeat(1024 * 1024)]),
    });
    await refusal(huge, 413, "payload_too_large", "body");
    assert.equal((await fetch(url("too-big"), { method: "HEAD" })).status, 404);
  });

  test("bad reads and appends are 400s naming what was wrong, with nova's error body", async () => {
    await fetch(url("bad"), { method: "PUT", headers: { "content-type": "text/plain" } });
    await refusal(
      await fetch(`${url("bad")}?offset=0000000000000000_0000000000000012`),
      400,
      "bad_query",
      "offset",
    );
    await refusal(await fetch(`${url("bad")}?offset=-1&live=poll`), 400, "bad_query", "live");
    await refusal(await fetch(`${url("bad")}?live=sse`), 400, "bad_query", "offset");
    const beyond = await fetch(`${url("bad")}?offset=0000000000000009_0000000000000000`);
    await refusal(beyond, 400, "range_not_satisfiable", "offset");
    const noType = await fetch(url("bad"), { method: "POST", body: new Uint8Array([1]) });
    await refusal(noType, 400, "bad_header", "content-type");
    const empty = await fetch(url("bad"), {
      method: "POST",
      headers: { "content-type": "text/plain" },
    });
    await refusal(empty, 400, "invalid_argument", "body");
    // Any value of Stream-Closed but true is as if absent (the protocol's rule); the refusal
    // says which value it passed over.
    const notTrue = await fetch(url("bad"), {
      method: "POST",
      headers: { "content-type": "text/plain", "stream-closed": "yes" },
    });
    const said = await refusal(notTrue, 400, "invalid_argument", "body");
    assert.match(said.message, /Stream-Closed: "yes" is not true/);
    const half = await fetch(url("bad"), {
      method: "POST",
      headers: { "content-type": "text/plain", "producer-id": "p" },
      body: "x",
    });
    await refusal(half, 400, "bad_header", "producer-id");
    const seq = await fetch(url("bad"), {
      method: "POST",
      headers: { "content-type": "text/plain", "stream-seq": "" },
      body: "x",
    });
    await refusal(seq, 400, "bad_header", "stream-seq");
    assert.equal(
      (await fetch(url("bad"))).headers.get("stream-next-offset"),
      "0000000000000000_0000000000000000",
    );
  });

  test("forks copy what they inherit, to a byte inside a message; __ds paths are 404", async () => {
    const src = await fetch(url("source"), {
      method: "PUT",
      headers: { "content-type": "text/plain" },
      body: "ab",
    });
    const zero = "0000000000000000_0000000000000000";
    const from = { "stream-forked-from": "/ds/v1/stream/source", "stream-fork-offset": zero };
    const over = await fetch(url("fork"), {
      method: "PUT",
      headers: { ...from, "stream-fork-sub-offset": "3" },
    });
    await refusal(over, 400, "bad_header", "stream-fork-sub-offset");
    assert.equal((await fetch(url("fork"), { method: "HEAD" })).status, 404, "nothing left");
    const sub = await fetch(url("fork"), {
      method: "PUT",
      headers: { ...from, "stream-fork-sub-offset": "1" },
    });
    assert.equal(sub.status, 201);
    assert.equal(await (await fetch(url("fork"))).text(), "a");
    const whole = await fetch(url("fork2"), {
      method: "PUT",
      headers: { "stream-forked-from": "/ds/v1/stream/source" },
    });
    assert.equal(whole.status, 201);
    assert.equal(whole.headers.get("content-type"), "text/plain");
    assert.equal(whole.headers.get("stream-next-offset"), src.headers.get("stream-next-offset"));
    assert.equal(await (await fetch(url("fork2"))).text(), "ab");
    for (const reserved of ["__ds/subscriptions/x", "orders/__ds/subscriptions/x", "a/__ds"]) {
      for (const method of ["PUT", "GET"]) {
        const res = await fetch(url(reserved), {
          method,
          ...(method === "PUT" ? { headers: { "content-type": "text/plain" } } : {}),
        });
        await refusal(res, 404, "not_found", "path");
      }
    }
    // A segment that only starts so is a name like any other.
    assert.equal((await fetch(url("a/__dsx"), { method: "PUT" })).status, 201);
  });

  test("a fork that would inherit what its source's trim took is 409, nothing made", async () => {
    await fetch(url("trim-source"), { method: "PUT", headers: { "content-type": "text/plain" } });
    for (const body of ["a", "b", "c"]) {
      await fetch(url("trim-source"), {
        method: "POST",
        headers: { "content-type": "text/plain" },
        body,
      });
    }
    const trim = await fetch(
      `${(gw as Gateway).base}/v1/buckets/ds-face/streams/trim-source/trim`,
      {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: '{"seq_num":1}',
      },
    );
    assert.equal(trim.status, 204);
    const from = (offset: bigint) => ({
      "stream-forked-from": "/ds/v1/stream/trim-source",
      "stream-fork-offset": offsetOf(offset),
    });
    // Records 0 and 1 are what a fork at 2 inherits; 0 is trimmed.
    const taken = await fetch(url("trim-fork"), { method: "PUT", headers: from(2n) });
    const body = await refusal(taken, 409, "failed_precondition", "stream-forked-from");
    assert.match(body.message, /no longer holds record 0 \(trimmed\)/);
    assert.equal((await fetch(url("trim-fork"), { method: "HEAD" })).status, 404, "nothing made");
    // At offset 0 it inherits nothing.
    const empty = await fetch(url("trim-fork"), { method: "PUT", headers: from(0n) });
    assert.equal(empty.status, 201);
    assert.equal(await (await fetch(url("trim-fork"))).text(), "");
  });

  test("a producer's seq older than the last 8 it was acked for is a duplicate: 204, Producer-Seq its last", async () => {
    await fetch(url("stale"), { method: "PUT", headers: { "content-type": "text/plain" } });
    const send = (seq: number) =>
      fetch(url("stale"), {
        method: "POST",
        headers: {
          "content-type": "text/plain",
          "producer-id": "p",
          "producer-epoch": "0",
          "producer-seq": String(seq),
        },
        body: `m${seq}`,
      });
    for (let seq = 0; seq < 10; seq++) assert.equal((await send(seq)).status, 200);
    const stale = await send(1);
    assert.equal(stale.status, 204);
    assert.deepEqual(
      [stale.headers.get("producer-epoch"), stale.headers.get("producer-seq")],
      ["0", "9"],
    );
    assert.equal(stale.headers.get("stream-next-offset"), offsetOf(10n));
    const all = await (await fetch(`${url("stale")}?offset=-1`)).text();
    assert.equal(all, Array.from({ length: 10 }, (_, i) => `m${i}`).join(""));
  });

  test("a path with a . or .. segment, which clients resolve away, is 400; nothing is made", async () => {
    // The face's bucket exists (made on first use), so a listing can show what was made.
    await fetch(url("dots-ok"), { method: "PUT", headers: { "content-type": "text/plain" } });
    for (const path of ["dots/../x", "dots/./x", "dots/%2E%2E/x", ".."]) {
      // Sent as is: URL clients (fetch, undici) would resolve the segments away themselves.
      const c = await openRaw((gw as Gateway).base);
      try {
        c.socket.write(
          `PUT /ds/v1/stream/${path} HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: text/plain\r\n` +
            "content-length: 0\r\nconnection: close\r\n\r\n",
        );
        await waitFor(() => c.text().includes("\r\n\r\n{"), { message: `${path} answered` });
        const answer = parseAnswer(c.text());
        assert.equal(answer.status, 400, path);
        assert.equal(answer.body.code, "bad_path", path);
        assert.match(String(answer.body.message), /no URL path can name/);
      } finally {
        c.socket.destroy();
      }
    }
    const list = await fetch(`${(gw as Gateway).base}/v1/buckets/ds-face/streams?prefix=dots/`);
    const listed = (await list.json()) as { streams: unknown[] };
    assert.equal(list.status, 200, JSON.stringify(listed));
    assert.deepEqual(listed.streams, []);
  });

  test("a source deleted while a fork lives is gone (410, path 409) until the fork goes", async () => {
    await fetch(url("parent"), {
      method: "PUT",
      headers: { "content-type": "text/plain" },
      body: "p",
    });
    const child = await fetch(url("child", other), {
      method: "PUT",
      headers: { "stream-forked-from": "/v1/stream/parent" },
    });
    assert.equal(child.status, 201);
    assert.equal((await fetch(url("parent"), { method: "DELETE" })).status, 204);
    await refusal(await fetch(url("parent", other)), 410, "gone");
    await refusal(
      await fetch(url("parent"), {
        method: "POST",
        headers: { "content-type": "text/plain" },
        body: "x",
      }),
      410,
      "gone",
    );
    await refusal(await fetch(url("parent"), { method: "PUT" }), 409, "already_exists");
    assert.equal(await (await fetch(url("child"))).text(), "p", "the fork reads on");
    assert.equal((await fetch(url("child", other), { method: "DELETE" })).status, 204);
    assert.equal((await fetch(url("parent"), { method: "HEAD" })).status, 404, "released with it");
    const again = await fetch(url("parent"), { method: "PUT" });
    assert.equal(again.status, 201);
  });

  test("a Stream-Seq regression is 409 and appends nothing; the scope is the stream", async () => {
    await fetch(url("seq"), { method: "PUT", headers: { "content-type": "text/plain" } });
    const post = (seq: string, body: string, g = gw) =>
      fetch(url("seq", g), {
        method: "POST",
        headers: { "content-type": "text/plain", "stream-seq": seq },
        body,
      });
    assert.equal((await post("b", "1")).status, 204);
    await refusal(await post("a", "2", other), 409, "writer_seq_regression");
    assert.equal((await post("c", "3", other)).status, 204);
    assert.equal(await (await fetch(url("seq"))).text(), "13");
  });
});
