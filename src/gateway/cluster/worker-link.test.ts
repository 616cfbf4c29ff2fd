import assert from "node:assert/strict";
import { EventEmitter } from "node:events";
import { describe, test } from "node:test";
import { Gauge, Registry } from "prom-client";
import type { StopSignal, ToPrimary } from "./messages.ts";
import { type PrimaryChannel, WorkerLink } from "./worker-link.ts";

/** `process` in a worker, as the link sees it: what it sent, and the primary's messages. */
class FakeChannel extends EventEmitter implements PrimaryChannel {
  readonly sent: ToPrimary[] = [];
  connected = true;
  send = (message: ToPrimary) => {
    this.sent.push(message);
  };
}

function link(timeoutMs = 1000) {
  const channel = new FakeChannel();
  const registry = new Registry();
  new Gauge({ name: "g", help: "g", registers: [registry] }).set(5);
  const stops: StopSignal[] = [];
  let orphaned = 0;
  const worker = new WorkerLink({
    registry,
    timeoutMs,
    onStop: (signal) => stops.push(signal),
    onOrphaned: () => {
      orphaned++;
    },
    channel,
  });
  return { channel, worker, stops, orphaned: () => orphaned };
}

describe("WorkerLink", () => {
  test("says ready with its URL, and takes the primary's stop", () => {
    const { channel, worker, stops } = link();
    worker.ready("http://127.0.0.1:9");
    assert.deepEqual(channel.sent, [{ nova: "ready", url: "http://127.0.0.1:9" }]);
    channel.emit("message", { nova: "stop", signal: "SIGTERM", round: 1 });
    // The same round sent again (the primary could not know it was heard) is heard once.
    channel.emit("message", { nova: "stop", signal: "SIGTERM", round: 1 });
    channel.emit("message", { nova: "stop", signal: "SIGINT", round: 2 });
    channel.emit("message", "not ours");
    assert.deepEqual(stops, ["SIGTERM", "SIGINT"]);
  });

  test("answers the primary's gather with its registry", async () => {
    const { channel } = link();
    channel.emit("message", { nova: "gather", id: 4 });
    await new Promise((r) => setImmediate(r));
    const [answer] = channel.sent as [{ nova: string; id: number; part: { name: string }[] }];
    assert.equal(answer.nova, "metrics-part");
    assert.equal(answer.id, 4);
    assert.deepEqual(
      answer.part.map((m) => m.name),
      ["g"],
    );
  });

  test("metricsText resolves with the primary's text, rejects with its failure", async () => {
    const { channel, worker } = link();
    const text = worker.metricsText();
    const failed = worker.metricsText();
    const [a, b] = channel.sent as unknown as [{ id: number }, { id: number }];
    channel.emit("message", { nova: "metrics-failed", id: b.id, message: "1 of 2 workers ..." });
    channel.emit("message", { nova: "metrics-text", id: a.id, text: "g 10\n" });
    assert.equal(await text, "g 10\n");
    await assert.rejects(failed, /1 of 2 workers/);
  });

  test("metricsText rejects when the primary does not answer in time, or is gone", async () => {
    const { channel, worker, orphaned } = link(20);
    await assert.rejects(worker.metricsText(), /the primary did not answer within 20 ms; retry/);
    channel.connected = false;
    channel.emit("disconnect");
    assert.equal(orphaned(), 1);
    await assert.rejects(worker.metricsText(), /the primary is gone/);
  });
});
