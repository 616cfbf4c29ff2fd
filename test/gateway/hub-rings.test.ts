// The hubs' windows are bounded all together (--hub-rings-mb), over real sockets: two busy
// streams followed at once hold at most the bound (and each window its newest batch), the
// subscribers at the tail get every record in order, and one that joins behind the windows
// catches up on its own, every record once.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { Gateway } from "../harness/gateway.ts";
import { append, http, newStream } from "../harness/http.ts";
import { metric } from "../harness/metrics.ts";
import { type Stack, startStack } from "../harness/stack.ts";
import { waitFor } from "../harness/wait.ts";
import { closeSseAgent, openSse, readUntil, recordsOf } from "./sse-client.ts";

const TOTAL = 1 << 20;
const BODY = 100_000;
const BATCHES = 10;
let stack: Stack<Gateway>;

before(async () => {
  stack = await startStack("nova-hub-rings-", {
    gateway: {
      // Each window alone could hold all of its stream's batches; together they may not.
      hubs: {
        ring: { maxBatches: 4096, maxBytes: 16 << 20 },
        totalBytes: TOTAL,
        lingerMs: 60_000,
        readGrantMs: 0,
        fanoutSlice: 64,
      },
    },
  });
});
after(async () => {
  await closeSseAgent();
  await stack?.close();
});

const held = () => metric(stack.gw.base, "nova_gateway_memory_held_bytes", 'part="hub_rings"');

test("two busy streams' windows hold at most the total, and every subscriber gets every record", async () => {
  const base = stack.gw.base;
  const streams = [await newStream(base), await newStream(base)];
  const tails = await Promise.all(streams.map((s) => openSse(`${base}${s}/records?tail_offset=0`)));
  try {
    for (const t of tails) assert.equal(t.status, 200);
    const expected = Array.from({ length: BATCHES }, (_, i) => [i, `${i}`.padEnd(BODY, "x")]);
    for (const s of streams) {
      for (const [, body] of expected) await append(base, s, [body as string]);
    }
    for (const t of tails) {
      const seen = await readUntil(t.events, (e) => recordsOf(e).length >= BATCHES);
      assert.deepEqual(recordsOf(seen), expected);
    }
    // Unbounded, the windows would hold every batch and its event: about 4 MB. Bounded, the
    // total and at most each window's newest batch with its event.
    const bytes = await held();
    assert.ok(bytes > 0);
    assert.ok(bytes <= TOTAL + 2 * 3 * BODY, `${bytes} bytes held`);

    // Behind both windows now: it catches up from history, every record once, in order.
    const late = await openSse(`${base}${streams[0]}/records?seq_num=0`);
    try {
      const seen = await readUntil(late.events, (e) => recordsOf(e).length >= BATCHES);
      assert.deepEqual(recordsOf(seen), expected);
    } finally {
      late.close();
    }
  } finally {
    for (const t of tails) t.close();
  }
});

test("a followed stream that closes takes its window out of the total once its readers are gone", async () => {
  const base = stack.gw.base;
  const before = await held();
  const s = await newStream(base);
  const reader = await openSse(`${base}${s}/records?tail_offset=0`);
  try {
    await append(base, s, ["x".repeat(BODY)]);
    await readUntil(reader.events, (e) => recordsOf(e).length >= 1);
    assert.ok((await held()) > before);
    const closed = await http(base, "POST", `${s}/close`, {});
    assert.equal(closed.status, 200, closed.text);
    // The session ends at the close; the hub ends with its stream, and its window with its reader.
    await readUntil(reader.events);
  } finally {
    reader.close();
  }
  await waitFor(async () => (await held()) === before || undefined, {
    message: "the closed stream's window out of the total",
  });
});
