// A gateway under raw fuzzing: runs scripts on streams of its own and holds each stream's tail
// to what was acked. A run whose broken request may still append unseen (or that failed) leaves
// its stream behind, so a late append cannot blur the next run's count.
import assert from "node:assert/strict";
import { http } from "../harness/http.ts";
import { type ConnectionResult, runScript } from "./raw-connection.ts";
import type { RawScript } from "./raw-requests.ts";

/** Records every new stream starts with (an SSE read of one record then ends at once). */
const SEEDED = 2;

export class RawFuzzTarget {
  readonly #base: string;
  readonly #bucket: string;
  #streams = 0;
  #current: { path: string; tail: number } | undefined;
  /** The script run before on the current stream: what might have landed late. */
  #before: RawScript | undefined;

  constructor(base: string, bucket: string) {
    this.#base = base;
    this.#bucket = bucket;
  }

  /** Creates the bucket the streams go in. */
  async open(): Promise<void> {
    const created = await http(this.#base, "POST", "/v1/buckets", { name: this.#bucket });
    assert.equal(created.status, 201, created.text);
  }

  /** Runs one script and checks it, the stream's tail included; throws what it broke. */
  async run(script: RawScript): Promise<ConnectionResult> {
    const current = this.#current ?? { path: await this.#freshStream(), tail: SEEDED };
    const before = this.#current === undefined ? undefined : this.#before;
    this.#current = undefined;
    const result = await runScript(this.#base, script, current.path);
    const now = await this.#tail(current.path);
    // A broken NDJSON session may have appended some of its lines before the break.
    const moved = now - current.tail;
    assert.ok(
      moved >= result.acked && moved <= result.acked + result.unseen,
      `the tail moved by ${moved}; ${result.acked} records were acked, ${result.unseen} more may have landed unseen` +
        (before ? `; the run before on this stream: ${JSON.stringify(before)}` : ""),
    );
    if (result.unseen === 0) this.#current = { path: current.path, tail: now };
    this.#before = script;
    return result;
  }

  async #freshStream(): Promise<string> {
    const key = `s${++this.#streams}`;
    const created = await http(this.#base, "POST", `/v1/buckets/${this.#bucket}/streams`, { key });
    assert.equal(created.status, 201, created.text);
    const path = `/v1/buckets/${this.#bucket}/streams/${key}`;
    const records = Array.from({ length: SEEDED }, (_, i) => ({ body: String(i) }));
    const res = await http(this.#base, "POST", `${path}/records`, { records });
    assert.equal(res.status, 200, res.text);
    return path;
  }

  async #tail(stream: string): Promise<number> {
    const res = await http(this.#base, "GET", `${stream}/records/tail`);
    assert.equal(res.status, 200, res.text);
    return res.json.tail.seq_num;
  }
}
