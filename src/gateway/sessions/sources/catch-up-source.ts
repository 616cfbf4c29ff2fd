// An SSE session's catch-up: a source that reads settled history from object storage first,
// then hands over to the live source (Subscribe) at exactly the next seq_num, so the session
// sees one sequence with no gap and no duplicate. A start from the tail (or an offset back
// from it) has no history to catch up on and goes straight to the live source.

import { PageRule } from "../../../contract/page-rule.ts";
import type { HistorySource } from "../../history/index.ts";
import { planStart } from "../../history/index.ts";
import type { BatchSource, Cursor, SourceBatch } from "./source.ts";

export function withCatchUp(
  history: HistorySource,
  live: BatchSource,
  stream: { bucket: string; key: string; authorization?: string | undefined },
): BatchSource {
  return (cursor, signal) => catchUp(history, live, stream, cursor, signal);
}

async function* catchUp(
  history: HistorySource,
  live: BatchSource,
  stream: { bucket: string; key: string; authorization?: string | undefined },
  cursor: Cursor,
  signal: AbortSignal,
): AsyncGenerator<SourceBatch> {
  const start = planStart(cursor.start);
  if (start === undefined) {
    yield* live(cursor, signal);
    return;
  }
  // The session applies its own bounds and stops pulling when they are met.
  const unbounded = new PageRule(Number.POSITIVE_INFINITY, Number.POSITIVE_INFINITY);
  const reader = history.read({ bucket: stream.bucket, key: stream.key }, start, unbounded, {
    authorization: stream.authorization,
    signal,
  });
  let step = await reader.next();
  while (!step.done) {
    yield step.value;
    step = await reader.next();
  }
  const { planned, next } = step.value;
  const moved = planned && ("seq_num" in next ? next.seq_num : undefined) !== seqOf(cursor);
  // Past records read from history the cursor is a seq_num within the stream: no clamp.
  yield* live(moved ? { start: next, clamp: false } : cursor, signal);
}

function seqOf(cursor: Cursor): string | undefined {
  return "seq_num" in cursor.start ? cursor.start.seq_num : undefined;
}
