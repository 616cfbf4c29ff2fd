// Test support: a curl-style SSE client over undici (any header, any status, raw bytes) that
// reads the event stream with eventsource-parser.
import { createParser } from "eventsource-parser";
import { Agent, type Dispatcher, request } from "undici";

export interface SseEvent {
  event: string;
  data: string;
  id?: string;
  retry?: number;
}

/**
 * Parses an event stream; yields each event, and each `retry:` as an event "retry". A line the
 * event-stream format does not allow fails the read, so a malformed stream cannot pass a test.
 */
export async function* parseSse(
  body: AsyncIterable<Uint8Array | string>,
): AsyncGenerator<SseEvent> {
  const decoder = new TextDecoder();
  const parsed: SseEvent[] = [];
  let invalid: Error | undefined;
  const parser = createParser({
    onEvent: ({ event, data, id }) =>
      parsed.push(
        id === undefined
          ? { event: event ?? "message", data }
          : { event: event ?? "message", data, id },
      ),
    onRetry: (retry) => parsed.push({ event: "retry", data: "", retry }),
    onError: (err) => {
      invalid ??= err;
    },
  });
  for await (const chunk of body) {
    parser.feed(typeof chunk === "string" ? chunk : decoder.decode(chunk, { stream: true }));
    if (invalid) throw invalid;
    yield* parsed.splice(0);
  }
}

export interface SseResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** The body as events (after a non-2xx status: use `text()`). */
  events: AsyncGenerator<SseEvent>;
  text(): Promise<string>;
  /** Drops the connection. */
  close(): void;
}

/** A dispatcher with no connection limit, so hundreds of subscribers can be open at once. */
const newSseAgent = () => new Agent({ connections: null, pipelining: 0 });
let shared = newSseAgent();

/** The dispatcher `openSse` uses unless given another. */
export const sseAgent = (): Agent => shared;

/**
 * Closes the shared dispatcher and its connections (a test file's `after`); the next `openSse`
 * gets a fresh one, as another file sharing the process (scripts/file-bundle.ts) may come next.
 */
export async function closeSseAgent(): Promise<void> {
  const closing = shared;
  shared = newSseAgent();
  await closing.close();
}

export async function openSse(
  url: string,
  headers: Record<string, string> = {},
  dispatcher: Dispatcher = shared,
): Promise<SseResponse> {
  const abort = new AbortController();
  const res = await request(url, {
    headers: { accept: "text/event-stream", ...headers },
    signal: abort.signal,
    dispatcher,
  });
  return {
    status: res.statusCode,
    headers: res.headers,
    events: parseSse(res.body),
    text: () => res.body.text(),
    close: () => {
      abort.abort();
      res.body.destroy();
    },
  };
}

/**
 * Reads events until `until` holds or the stream ends. It pulls with next(), so stopping here
 * leaves the connection open for a later read. An event that does not come within `timeoutMs`
 * fails the read, saying what had come.
 */
export async function readUntil(
  events: AsyncGenerator<SseEvent>,
  until: (seen: SseEvent[]) => boolean = () => false,
  timeoutMs = 60_000,
): Promise<SseEvent[]> {
  const seen: SseEvent[] = [];
  while (!until(seen)) {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () =>
          reject(
            new Error(
              `no further event within ${timeoutMs} ms; had: ${seen.map((e) => e.event).join(",")}`,
            ),
          ),
        timeoutMs,
      );
    });
    const r = await Promise.race([events.next(), late]).finally(() => clearTimeout(timer));
    if (r.done) break;
    seen.push(r.value);
  }
  return seen;
}

/** The records of the batch events, as [seq_num, body]. */
export function recordsOf(events: SseEvent[]): [number, string][] {
  return events
    .filter((e) => e.event === "batch")
    .flatMap((e) =>
      (JSON.parse(e.data).records as { seq_num: number; body: string }[]).map(
        (r) => [r.seq_num, r.body] as [number, string],
      ),
    );
}
