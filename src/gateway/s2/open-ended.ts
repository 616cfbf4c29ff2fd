// S2 has no closed streams (docs/producers.md): a stream closed through nova's API is read on S2's
// face as one that takes no more appends. Past its last records a session waits at the tail, as
// S2's would, with its own heartbeats, until the client or the gateway stops it; it never ends
// with an error that would send S2's SDK into reconnecting.
import type { BatchSource, SourceBatch } from "../sessions/index.ts";

export function openEnded(source: BatchSource): BatchSource {
  return async function* (cursor, signal, tap) {
    for await (const batch of source(cursor, signal, tap)) {
      if (!batch.closed) {
        yield batch;
        continue;
      }
      const { closed: _, ...open }: SourceBatch = batch;
      yield open;
      // At the end of a closed stream: caught up, and nothing will come.
      if (open.records.length > 0) yield { records: [], tail: open.tail };
      await new Promise<void>((resolve) => {
        if (signal.aborted) resolve();
        else signal.addEventListener("abort", () => resolve(), { once: true });
      });
      return;
    }
  };
}
