// Fakes for SSE session tests (nova's and S2's): records and batches, a source the test feeds,
// and a response that collects what is written and can stall like a client that stops reading.
import { Writable } from "node:stream";
import type { Record__Output } from "../../../gen/nova/v1/Record.ts";
import type { Cursor, SourceBatch } from "../sources/source.ts";

export const rec = (seq: number, body = "x", ts = seq): Record__Output => ({
  seq_num: String(seq),
  timestamp_ms: String(ts),
  body: Buffer.from(body),
  headers: [],
});
export const batch = (seqs: number[], tail: number): SourceBatch => ({
  records: seqs.map((s) => rec(s)),
  tail: { seq_num: String(tail), timestamp_ms: "0" },
});
export const caughtUp = (tail: number): SourceBatch => batch([], tail);

/** A source the test feeds; it records the cursor it was opened with and whether it ended. */
export class FakeSource {
  readonly items: (SourceBatch | Error)[] = [];
  cursor: Cursor | undefined;
  released = false;
  #wake: (() => void) | undefined;

  push(...items: (SourceBatch | Error)[]) {
    this.items.push(...items);
    this.#wake?.();
  }

  readonly source = (cursor: Cursor, signal: AbortSignal): AsyncIterable<SourceBatch> => {
    this.cursor = cursor;
    const self = this;
    return (async function* () {
      try {
        for (;;) {
          const item = self.items.shift();
          if (item instanceof Error) throw item;
          if (item) {
            yield item;
            continue;
          }
          signal.throwIfAborted();
          await new Promise<void>((resolve) => {
            self.#wake = resolve;
            signal.addEventListener("abort", () => resolve(), { once: true });
          });
        }
      } finally {
        self.released = true;
      }
    })();
  };
}

/** A response: collects what is written; `stalled` holds writes as a client that stops reading. */
export class FakeOut extends Writable {
  text = "";
  stalled = false;
  #held: (() => void)[] = [];
  constructor() {
    super({ highWaterMark: 64, decodeStrings: false });
  }
  override _write(chunk: string | Buffer, _enc: string, cb: () => void) {
    this.text += typeof chunk === "string" ? chunk : chunk.toString("utf8");
    if (this.stalled) this.#held.push(cb);
    else cb();
  }
  unstall() {
    this.stalled = false;
    for (const cb of this.#held.splice(0)) cb();
  }
  events() {
    return this.text
      .split("\n\n")
      .filter((e) => e.startsWith("event:"))
      .map((e) => {
        const fields = Object.fromEntries(
          e.split("\n").map((l) => [l.slice(0, l.indexOf(":")), l.slice(l.indexOf(":") + 2)]),
        );
        return { event: fields.event, id: fields.id, data: JSON.parse(fields.data ?? "null") };
      });
  }
}
