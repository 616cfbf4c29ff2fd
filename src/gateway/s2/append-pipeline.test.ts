import assert from "node:assert/strict";
import { EventEmitter } from "node:events";
import { mock, test } from "node:test";
import { Metadata, status } from "@grpc/grpc-js";
import { detailsMetadata } from "../../contract/proto/status-details.ts";
import type { AppendSession, Upstream } from "../upstream/index.ts";
import { S2AppendPipeline } from "./append-pipeline.ts";
import type { S2AppendInput } from "./commands.ts";

/** A star that acks session batches when told to and answers unary appends at once. */
class FakeStar {
  readonly calls: string[] = [];
  /** Batches written to the open session, not yet acked. */
  written: string[] = [];
  #call: (EventEmitter & { index: number }) | undefined;
  #tail = 0;
  #ending = false;

  /** As the star does at half-close: the queued acks first, then the status. */
  #endWhenAnswered(): void {
    if (!this.#ending || this.written.length > 0) return;
    this.#ending = false;
    const call = this.#call;
    queueMicrotask(() =>
      call?.emit("status", { code: status.OK, details: "", metadata: new Metadata() }),
    );
  }

  upstream(window = 8): Upstream {
    return {
      openAppendSession: async (open: { fencing_token?: string; end_on_refusal?: boolean }) => {
        this.calls.push(
          `open ${open.fencing_token ?? "-"}${open.end_on_refusal ? " end_on_refusal" : ""}`,
        );
        const call = Object.assign(new EventEmitter(), {
          index: 0,
          write: (frame: { batch: { records: { body: Buffer }[]; match_seq_num?: string } }) => {
            const match = frame.batch.match_seq_num;
            this.written.push(
              String(frame.batch.records[0]?.body) + (match === undefined ? "" : `@${match}`),
            );
          },
          end: () => {
            this.calls.push("end");
            this.#ending = true;
            this.#endWhenAnswered();
          },
          cancel: () => {},
        });
        this.#call = call;
        return {
          call,
          opened: { window, tail: null, star_id: "s" },
          address: "star",
        } as unknown as AppendSession;
      },
      unary: async (method: string, req: { records?: { body: Buffer }[] }) => {
        this.calls.push(`unary ${method} ${String(req.records?.[0]?.body)}`);
        const start = this.#tail++;
        return { start: pos(start), end: pos(start + 1), tail: pos(start + 1) };
      },
    } as unknown as Upstream;
  }

  /** Acks the oldest written batch. */
  ack(): void {
    const call = this.#call as EventEmitter & { index: number };
    this.written.shift();
    const start = this.#tail++;
    call.emit("data", {
      ack: {
        batch_index: String(call.index++),
        appended: { start: pos(start), end: pos(start + 1), tail: pos(start + 1) },
      },
    });
    this.#endWhenAnswered();
  }

  fail(code = status.INTERNAL, metadata = new Metadata()): void {
    this.#call?.emit("status", { code, details: "broken", metadata });
  }
}

const pos = (n: number) => ({ seq_num: String(n), timestamp_ms: "0" });
const input = (body: string, extra: Partial<S2AppendInput> = {}) =>
  ({
    records: [{ body: Buffer.from(body), headers: [] }],
    ...extra,
  }) as unknown as S2AppendInput;
const address = { bucket: "b", key: "k" };
const flush = () => new Promise((resolve) => setImmediate(resolve));
const IDLE_MS = 60_000;

test("plain batches go down one session together and are acked in order", async () => {
  const star = new FakeStar();
  const pipeline = new S2AppendPipeline(star.upstream(), address, {}, IDLE_MS);
  const acks = [];
  for (const body of ["a", "b", "c"]) acks.push((await pipeline.submit(input(body))).ack);
  assert.deepEqual(star.written, ["a", "b", "c"], "all three in flight before any ack");
  star.ack();
  star.ack();
  star.ack();
  assert.deepEqual(
    (await Promise.all(acks)).map((a) => a.start?.seq_num),
    ["0", "1", "2"],
  );
  await pipeline.close();
  assert.deepEqual(star.calls, ["open - end_on_refusal", "end"]);
});

test("a star session with nothing unanswered for idleMs ends; the next input opens another", async (t) => {
  t.mock.timers.enable({ apis: ["setTimeout"] });
  t.after(() => mock.timers.reset());
  const star = new FakeStar();
  const pipeline = new S2AppendPipeline(star.upstream(), address, {}, 1000);
  const a = (await pipeline.submit(input("a"))).ack;
  star.ack();
  await a;
  t.mock.timers.tick(999);
  // An input before the idle time restarts it, and one unanswered keeps the session.
  const b = (await pipeline.submit(input("b"))).ack;
  t.mock.timers.tick(5000);
  assert.deepEqual(star.calls, ["open - end_on_refusal"]);
  star.ack();
  await b;
  t.mock.timers.tick(999);
  assert.deepEqual(star.calls, ["open - end_on_refusal"]);
  t.mock.timers.tick(1);
  assert.deepEqual(star.calls, ["open - end_on_refusal", "end"]);
  await flush();
  const c = (await pipeline.submit(input("c"))).ack;
  star.ack();
  assert.equal((await c).start?.seq_num, "2");
  await pipeline.close();
  assert.deepEqual(star.calls, ["open - end_on_refusal", "end", "open - end_on_refusal", "end"]);
});

test("the star's window holds the next batch until an ack frees a slot", async () => {
  const star = new FakeStar();
  const pipeline = new S2AppendPipeline(star.upstream(2), address, {}, IDLE_MS);
  await pipeline.submit(input("a"));
  await pipeline.submit(input("b"));
  let third = false;
  const submitted = pipeline.submit(input("c")).then((s) => {
    third = true;
    return s;
  });
  await flush();
  assert.equal(third, false);
  star.ack();
  await submitted;
  assert.deepEqual(star.written, ["b", "c"]);
});

test("batches with match_seq_num are pipelined too; a command goes alone; a new token reopens", async () => {
  const star = new FakeStar();
  const pipeline = new S2AppendPipeline(star.upstream(), address, {}, IDLE_MS);
  const first = (await pipeline.submit(input("a"))).ack;
  const conditioned = (await pipeline.submit(input("m", { match_seq_num: "1" }))).ack;
  assert.deepEqual(star.written, ["a", "m@1"], "both in flight at once");
  assert.deepEqual(star.calls, ["open - end_on_refusal"]);
  star.ack();
  star.ack();
  await first;
  await conditioned;
  const fence = {
    records: [
      { body: Buffer.from("t"), headers: [{ name: Buffer.alloc(0), value: Buffer.from("fence") }] },
    ],
  } as unknown as S2AppendInput;
  await (await pipeline.submit(fence)).ack;
  const fenced = (await pipeline.submit(input("x", { fencing_token: "t" }))).ack;
  star.ack();
  await fenced;
  assert.deepEqual(star.calls, [
    "open - end_on_refusal",
    "end",
    "unary Append t",
    "open t end_on_refusal",
  ]);
});

test("a refusal ends the session: that input and the later ones fail as known, appending nothing", async () => {
  const star = new FakeStar();
  const pipeline = new S2AppendPipeline(star.upstream(), address, {}, IDLE_MS);
  const a = (await pipeline.submit(input("a", { match_seq_num: "5" }))).ack;
  const b = (await pipeline.submit(input("b", { match_seq_num: "6" }))).ack;
  a.catch(() => {});
  b.catch(() => {});
  star.fail(status.FAILED_PRECONDITION);
  for (const ack of [a, b]) {
    await assert.rejects(ack, (err: { outcomeUnknown?: boolean }) => err.outcomeUnknown === false);
  }
  await assert.rejects((await pipeline.submit(input("c"))).ack);
});

test("after a failure, later inputs fail unsent; unanswered ones fail as outcome unknown", async () => {
  const star = new FakeStar();
  const pipeline = new S2AppendPipeline(star.upstream(), address, {}, IDLE_MS);
  const a = (await pipeline.submit(input("a"))).ack;
  a.catch(() => {});
  star.fail();
  await assert.rejects(a, (err: { outcomeUnknown?: boolean }) => err.outcomeUnknown === true);
  const later = (await pipeline.submit(input("b"))).ack;
  await assert.rejects(later);
  assert.deepEqual(star.written, ["a"], "b was never sent");
  // An input that is not a valid batch fails the same way for what follows it.
  const other = new S2AppendPipeline(new FakeStar().upstream(), address, {}, IDLE_MS);
  await assert.rejects((await other.submit({ records: [] } as unknown as S2AppendInput)).ack);
  await assert.rejects((await other.submit(input("c"))).ack);
});

test("a fencing refusal stops what is submitted while the installed token is looked up", async () => {
  const star = new FakeStar();
  const base = star.upstream();
  let answerLookup: (() => void) | undefined;
  const upstream = {
    ...base,
    unary: async (method: string, req: unknown) => {
      if (method !== "GetStream") return base.unary(method as never, req as never, {});
      star.calls.push("unary GetStream");
      await new Promise<void>((resolve) => {
        answerLookup = resolve;
      });
      return { stream: { fencing_token: "new" } };
    },
  } as unknown as Upstream;
  const pipeline = new S2AppendPipeline(upstream, address, {}, IDLE_MS);
  const a = (await pipeline.submit(input("a", { fencing_token: "old" }))).ack;
  a.catch(() => {});
  const metadata = detailsMetadata(status.FAILED_PRECONDITION, "fenced", [
    { type: "FencingTokenMismatch", value: { token_installed: true } },
  ]);
  star.fail(status.FAILED_PRECONDITION, metadata);
  while (!answerLookup) await flush();
  // While the star is asked for the token in force: a plain batch, and a fence command.
  const plain = (await pipeline.submit(input("b"))).ack;
  plain.catch(() => {});
  await flush();
  assert.deepEqual(star.calls, ["open old end_on_refusal", "unary GetStream"], "b not sent");
  const fence = (
    await pipeline.submit({
      records: [
        {
          body: Buffer.from("t2"),
          headers: [{ name: Buffer.alloc(0), value: Buffer.from("fence") }],
        },
      ],
    } as unknown as S2AppendInput)
  ).ack;
  fence.catch(() => {});
  answerLookup?.();
  await flush();
  assert.deepEqual(star.calls, ["open old end_on_refusal", "unary GetStream"], "nothing sent");
  for (const ack of [a, plain, fence]) await assert.rejects(ack, /fencing|token/i);
});
