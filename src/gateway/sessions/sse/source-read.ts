// How SSE sessions (nova's and S2's) read their source: stopped with the client, one batch
// pulled at a time (read-loop.ts races it against a timer and a wake-up).
import type { SourceBatch } from "../sources/index.ts";

/** The source's next batch, to be raced and awaited when it wins. */
export function pullNext(it: AsyncIterator<SourceBatch>): Promise<IteratorResult<SourceBatch>> {
  const next = it.next();
  // An abort's rejection may land after the session ended, when nobody awaits it.
  next.catch(() => {});
  return next;
}

/**
 * Stops the session's source (`stop`) when the client goes away (`signal`); returns what ends
 * the link early, for a session that learns of its client's end another way.
 */
export function stopWith(signal: AbortSignal, stop: AbortController): () => void {
  const onAbort = () => stop.abort(signal.reason);
  const unlink = () => signal.removeEventListener("abort", onAbort);
  if (signal.aborted) onAbort();
  signal.addEventListener("abort", onAbort, { once: true });
  stop.signal.addEventListener("abort", unlink, { once: true });
  return () => {
    unlink();
    stop.signal.removeEventListener("abort", unlink);
  };
}
