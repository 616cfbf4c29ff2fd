// A fake for tests of hubs and of what reads them: a feed the test sends frames into.
import type { SourceBatch } from "../sources/source.ts";
import type { HubFeed } from "./stream-hub.ts";

/** A hub's feed the test sends frames into. */
export function feedChannel(): { feed: HubFeed; send: (...frames: SourceBatch[]) => void } {
  const frames: SourceBatch[] = [];
  let wake: (() => void) | undefined;
  const feed: HubFeed = async function* (_cursor, signal) {
    for (;;) {
      const f = frames.shift();
      if (f) {
        yield f;
        continue;
      }
      if (signal.aborted) return;
      await new Promise<void>((resolve) => {
        wake = resolve;
        signal.addEventListener("abort", () => resolve(), { once: true });
      });
    }
  };
  const send = (...f: SourceBatch[]) => {
    frames.push(...f);
    wake?.();
  };
  return { feed, send };
}
