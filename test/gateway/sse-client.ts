// Test support: a curl-style SSE client over undici (any header, any status, raw bytes), and
// the event-stream parser it reads with.
import { Agent, request } from "undici";

export interface SseEvent {
  event: string;
  data: string;
  id?: string;
  retry?: number;
}

/** Parses an event stream; yields each event (a `retry:`-only block too, as event "retry"). */
export async function* parseSse(
  body: AsyncIterable<Uint8Array | string>,
): AsyncGenerator<SseEvent> {
  const decoder = new TextDecoder();
  let buffer = "";
  let fields: Partial<SseEvent> & { dataLines?: string[] } = {};
  for await (const chunk of body) {
    buffer += typeof chunk === "string" ? chunk : decoder.decode(chunk, { stream: true });
    for (;;) {
      const nl = buffer.search(/\r\n|\r|\n/);
      if (nl < 0) break;
      const line = buffer.slice(0, nl);
      buffer = buffer.slice(buffer[nl] === "\r" && buffer[nl + 1] === "\n" ? nl + 2 : nl + 1);
      if (line === "") {
        if (fields.dataLines || fields.retry !== undefined) {
          const e: SseEvent = {
            event: fields.event ?? (fields.dataLines ? "message" : "retry"),
            data: (fields.dataLines ?? []).join("\n"),
          };
          if (fields.id !== undefined) e.id = fields.id;
          if (fields.retry !== undefined) e.retry = fields.retry;
          yield e;
        }
        fields = {};
        continue;
      }
      const colon = line.indexOf(":");
      const name = colon < 0 ? line : line.slice(0, colon);
      let value = colon < 0 ? "" : line.slice(colon + 1);
      if (value.startsWith(" ")) value = value.slice(1);
      if (name === "event") fields.event = value;
      else if (name === "data") fields.dataLines = [...(fields.dataLines ?? []), value];
      else if (name === "id") fields.id = value;
      else if (name === "retry") fields.retry = Number(value);
    }
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

/** One dispatcher with no connection limit, so hundreds of subscribers can be open at once. */
export const sseAgent = new Agent({ connections: null, pipelining: 0 });

export async function openSse(
  url: string,
  headers: Record<string, string> = {},
): Promise<SseResponse> {
  const abort = new AbortController();
  const res = await request(url, {
    headers: { accept: "text/event-stream", ...headers },
    signal: abort.signal,
    dispatcher: sseAgent,
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
 * leaves the connection open for a later read.
 */
export async function readUntil(
  events: AsyncGenerator<SseEvent>,
  until: (seen: SseEvent[]) => boolean = () => false,
): Promise<SseEvent[]> {
  const seen: SseEvent[] = [];
  while (!until(seen)) {
    const r = await events.next();
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
