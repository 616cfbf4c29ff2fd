// Encode once, write many: a live batch's SSE event, less its per-subscriber head (the resume
// id), made once per (format, int64 mode) and written as the same bytes to every subscriber.
// Each is kept as long as its batch, so it gets memory of its own rather than a slice of Node's
// allocation pool, and its size is reported to whoever bounds that memory.
import type { Position__Output } from "../../../gen/nova/v1/Position.ts";
import type { Record__Output } from "../../../gen/nova/v1/Record.ts";
import type { Int64Mode, RecordFormat } from "../../translate/index.ts";
import { batchEventRest, positionText, recordsJsonBytes } from "../../translate/index.ts";
import type { SharedEvent } from "../sources/index.ts";

export class SharedEncodings implements SharedEvent {
  /**
   * By format, then int64 mode (no key string made per reader); null: some record cannot be
   * shown in that mode, so each subscriber frames its own.
   */
  readonly #byMode = new Map<RecordFormat, Map<Int64Mode, Buffer | null>>();
  readonly #held: (bytes: number) => void;

  /** `held` is told the size of each encoding made. */
  constructor(held: (bytes: number) => void = () => {}) {
    this.#held = held;
  }

  /** The event's bytes after `batchEventHead`, or undefined when they cannot be shared. */
  rest(
    records: readonly Record__Output[],
    tail: Position__Output | null,
    format: RecordFormat,
    int64: Int64Mode,
  ): Buffer | undefined {
    let byInt64 = this.#byMode.get(format);
    if (!byInt64) {
      byInt64 = new Map();
      this.#byMode.set(format, byInt64);
    }
    const known = byInt64.get(int64);
    if (known !== undefined) return known ?? undefined;
    const { json, written, failure } = recordsJsonBytes(records, format, int64);
    const rest =
      failure === undefined && written === records.length
        ? batchEventRest(json, positionText(tail, int64), Buffer.allocUnsafeSlow)
        : null;
    byInt64.set(int64, rest);
    if (rest) this.#held(rest.length);
    return rest ?? undefined;
  }
}
