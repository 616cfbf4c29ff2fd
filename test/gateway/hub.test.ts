// Shared subscriptions over real sockets: SSE and long-poll readers through the gateway's hubs,
// to a real star process. Readers join at any position while a producer appends, lag past the
// window and rejoin, cut their bounds inside a shared batch; every one sees every record once,
// in order, and the upstream Subscribe calls follow the streams, not the readers.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { request } from "undici";
import type { Gateway } from "../harness/gateway.ts";
import { append, http, newStream } from "../harness/http.ts";
import { metric } from "../harness/metrics.ts";
import { type Stack, startStack } from "../harness/stack.ts";
import { waitFor } from "../harness/wait.ts";
import {
  closeSseAgent,
  openSse,
  readUntil,
  recordsOf,
  type SseResponse,
  sseAgent,
} from "./sse-client.ts";

let stack: Stack<Gateway>;
let gw: Gateway;

before(async () => {
  stack = await startStack("nova-hub-", {
    gateway: {
      // A read grant outlives any one test here, however slow the machine: the test of a
      // remembered yes must not see it expire between its two rounds. Fan-outs yield every
      // two subscribers, so the tests with several cross slices.
      hubs: {
        ring: { maxBatches: 4, maxBytes: 1 << 20 },
        totalBytes: 64 << 20,
        lingerMs: 50,
        readGrantMs: 600_000,
        fanoutSlice: 2,
      },
    },
  });
  gw = stack.gw;
});
after(async () => {
  await stack?.close();
  await closeSseAgent();
});

const calls = () => metric(gw.base, "nova_gateway_upstream_subscribe_calls");
const range = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => from + i);

/** A subscriber that reads in the background and keeps every record's seq_num. */
class Follower {
  readonly seqs: number[] = [];
  readonly ids: string[] = [];
  ended: string | undefined;
  readonly #sse: SseResponse;
  readonly #done: Promise<void>;

  private constructor(sse: SseResponse) {
    this.#sse = sse;
    this.#done = (async () => {
      try {
        for await (const e of sse.events) {
          if (e.event === "batch") {
            for (const [seq] of recordsOf([e])) this.seqs.push(seq);
            this.ids.push(e.id ?? "");
          }
          if (e.event === "done" || e.event === "error") this.ended = `${e.event} ${e.data}`;
        }
      } catch {
        // closed by the test
      }
    })();
  }

  static async open(url: string, headers: Record<string, string> = {}): Promise<Follower> {
    const sse = await openSse(url, headers);
    assert.equal(sse.status, 200);
    return new Follower(sse);
  }

  until(n: number): Promise<unknown> {
    return waitFor(() => (this.seqs[this.seqs.length - 1] ?? -1) >= n - 1, {
      timeoutMs: 30_000,
      message: `records up to ${n - 1} (have ${this.seqs.length})`,
    });
  }

  async close(): Promise<void> {
    this.#sse.close();
    await this.#done;
  }
}

describe("shared subscriptions", () => {
  test("readers joining at random positions and leaving while appends run each see every record once, in order; one upstream call per stream", async () => {
    const s = await newStream(gw.base);
    let len = 0;
    const produce = async (n: number) => {
      await append(gw.base, s, range(len, len + n).map(String));
      len += n;
    };
    await produce(3);
    const readers: { first: number; f: Follower; left: boolean }[] = [];
    // A fixed plan, so a failure replays: joins at the tail, at its head, behind the window.
    for (let round = 0; round < 24; round++) {
      await produce(1 + (round % 3));
      const back = [0, 1, 5, 30, -1][round % 5] as number;
      const first = back < 0 ? len : Math.max(0, len - back);
      const url = back < 0 ? `${gw.base}${s}/records` : `${gw.base}${s}/records?seq_num=${first}`;
      readers.push({ first, f: await Follower.open(url), left: false });
      if (round % 4 === 3) {
        const r = readers[round - 2] as (typeof readers)[number];
        await r.f.close();
        r.left = true;
        assert.deepEqual(r.f.seqs, range(r.first, r.first + r.f.seqs.length));
      }
    }
    await produce(2);
    try {
      for (const r of readers.filter((x) => !x.left)) {
        await r.f.until(len);
        assert.deepEqual(r.f.seqs, range(r.first, len));
      }
      // Everyone is at the tail: the only upstream call is the hub's.
      await waitFor(async () => (await calls()) === 1, { message: "one upstream call" });
      assert.equal(await metric(gw.base, "nova_gateway_hubs"), 1);
      assert.ok((await metric(gw.base, "nova_gateway_hub_joins_total", '{result="miss"}')) > 0);
    } finally {
      for (const r of readers) await r.f.close();
    }
    await waitFor(
      async () => (await calls()) === 0 && (await metric(gw.base, "nova_gateway_hubs")) === 0,
      {
        message: "the hub and its upstream call closed after the last reader left",
      },
    );
  });

  test("a reader that stops reading falls out of the window, catches up on its own and rejoins without a gap", async () => {
    const s = await newStream(gw.base);
    const big = "x".repeat(60 * 1024);
    const fast = await Follower.open(`${gw.base}${s}/records`);
    const slow = await openSse(`${gw.base}${s}/records`);
    const before = await metric(gw.base, "nova_gateway_hub_detaches_total");
    let len = 0;
    try {
      // 12 MiB while the slow reader reads nothing: more than its socket buffers and the window.
      for (let i = 0; i < 50; i++) {
        await append(gw.base, s, [big, big, big, big]);
        len += 4;
      }
      await fast.until(len);
      const seen = await readUntil(slow.events, (e) => recordsOf(e).at(-1)?.[0] === len - 1);
      assert.deepEqual(
        recordsOf(seen).map(([seq]) => seq),
        range(0, len),
      );
      assert.ok((await metric(gw.base, "nova_gateway_hub_detaches_total")) > before);
      await append(gw.base, s, ["after"]);
      const more = await readUntil(slow.events, (e) => recordsOf(e).length === 1);
      assert.deepEqual(recordsOf(more), [[len, "after"]]);
      await waitFor(async () => (await calls()) === 1, { message: "it rejoined the hub" });
    } finally {
      slow.close();
      await fast.close();
    }
  });

  test("a trim reaches the hub's window: readers joining below it start at the trim point", async () => {
    const s = await newStream(gw.base);
    const live = await Follower.open(`${gw.base}${s}/records`);
    try {
      await append(gw.base, s, ["0", "1", "2"]);
      await append(gw.base, s, ["3", "4", "5"]);
      await live.until(6);
      const trimmed = await http(gw.base, "POST", `${s}/trim`, { seq_num: 4 });
      assert.equal(trimmed.status, 204, trimmed.text);
      // The star tells the hub of the trim on the hub's own call, soon after the trim's answer;
      // then the window starts at 4, and a reader below it catches up from the star.
      const fromZero = async () => {
        const sse = await openSse(`${gw.base}${s}/records?seq_num=0&count=2`);
        return recordsOf(await readUntil(sse.events)).map(([seq]) => seq);
      };
      let seen: number[] = [];
      await waitFor(
        async () => {
          seen = await fromZero();
          return seen[0] === 4;
        },
        { message: "a reader from 0 to start at 4" },
      );
      assert.deepEqual(seen, [4, 5]);
      const polled = await http(gw.base, "GET", `${s}/records?seq_num=0&wait=1`);
      assert.deepEqual(
        polled.json.records.map((r: { seq_num: number }) => r.seq_num),
        [4, 5],
      );
    } finally {
      await live.close();
    }
  });

  test("a bound that ends inside a shared batch gets a batch of its own and done; its neighbour gets the whole batch", async () => {
    const s = await newStream(gw.base);
    const whole = await Follower.open(`${gw.base}${s}/records`);
    const bounded = await Follower.open(`${gw.base}${s}/records?count=4`);
    try {
      await append(gw.base, s, ["a", "b", "c"]);
      await append(gw.base, s, ["d", "e", "f"]);
      await whole.until(6);
      await waitFor(() => bounded.ended !== undefined, { message: "done" });
      assert.deepEqual(bounded.seqs, [0, 1, 2, 3]);
      assert.deepEqual(bounded.ids, ["2,3,3", "3,4,4"]);
      assert.match(bounded.ended ?? "", /^done .*"next":\{"seq_num":4/);
      assert.deepEqual(whole.seqs, range(0, 6));
      assert.deepEqual(whole.ids, ["2,3,3", "5,6,6"]);
    } finally {
      await whole.close();
      await bounded.close();
    }
  });

  test("many long-polls at the tail wait on one upstream call and all answer the next record; the next round costs no check", async () => {
    const s = await newStream(gw.base);
    await append(gw.base, s, ["0"]);
    const n = 1000;
    const checks = () =>
      metric(gw.base, "nova_gateway_upstream_calls_total", '{verb="CheckTail",code="OK"}');
    const round = async (seq: number) => {
      // Sessions of the tests before, still closing, would count against the client's
      // --max-sessions-per-client (1000) and turn some of these away.
      await waitFor(async () => (await metric(gw.base, "nova_gateway_sessions")) === 0, {
        message: "no session left open",
      });
      const polls = range(0, n).map(() =>
        request(`${gw.base}${s}/records?seq_num=${seq}&wait=20`, { dispatcher: sseAgent() }).then(
          async (res) => ({ status: res.statusCode, body: JSON.parse(await res.body.text()) }),
        ),
      );
      await waitFor(async () => (await metric(gw.base, "nova_gateway_hub_subscribers")) === n, {
        // A thousand connections and requests on a loaded 2-core machine.
        timeoutMs: 60_000,
        message: `${n} long-polls attached`,
      });
      assert.equal(await calls(), 1);
      await append(gw.base, s, [String(seq)]);
      for (const r of await Promise.all(polls)) {
        assert.equal(r.status, 200);
        assert.deepEqual(
          r.body.records.map((x: { seq_num: number; body: string }) => [x.seq_num, x.body]),
          [[seq, String(seq)]],
        );
      }
      await waitFor(async () => (await metric(gw.base, "nova_gateway_hub_subscribers")) === 0);
    };
    await round(1);
    // The star said yes to this credential on this stream a moment ago: no CheckTail again.
    const before = await checks();
    await round(2);
    assert.equal(await checks(), before);
  });

  test("with sharing off every reader holds its own upstream call", async () => {
    const off = await startStack("nova-hub-off-", { gateway: { hubs: false } });
    try {
      const s = await newStream(off.gw.base);
      const readers = await Promise.all(
        range(0, 3).map(() => Follower.open(`${off.gw.base}${s}/records`)),
      );
      await append(off.gw.base, s, ["x"]);
      for (const r of readers) await r.until(1);
      assert.equal(await metric(off.gw.base, "nova_gateway_upstream_subscribe_calls"), 3);
      assert.equal(await metric(off.gw.base, "nova_gateway_hubs"), 0);
      for (const r of readers) await r.close();
    } finally {
      await off.close();
    }
  });

  test("a stream deleted under a hub ends its readers with stream_not_found", async () => {
    const s = await newStream(gw.base);
    const a = await Follower.open(`${gw.base}${s}/records`);
    const b = await Follower.open(`${gw.base}${s}/records`);
    try {
      await append(gw.base, s, ["x"]);
      await a.until(1);
      await b.until(1);
      assert.equal((await http(gw.base, "DELETE", s)).status, 202);
      await waitFor(() => a.ended !== undefined && b.ended !== undefined, {
        message: "both ended",
      });
      assert.match(a.ended ?? "", /^error .*stream_not_found/);
      assert.match(b.ended ?? "", /^error .*stream_not_found/);
    } finally {
      await a.close();
      await b.close();
    }
  });
});
