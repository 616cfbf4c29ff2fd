// Server-Sent Events on the wire (the WHATWG event-stream format) for the contract's events:
// `retry`, `batch` (with its resume id), `ping`, `error` and `done`. Data is one line of JSON with
// exact integers. On a multiplexed subscription batch and done name their stream, and ping
// carries every stream's tail.
import type { ErrorBody } from "../errors/index.ts";
import type { ExactInt } from "./integers.ts";
import { stringifyJsonExact } from "./json-exact.ts";
import type { ScratchJson } from "./json-scratch.ts";
import type { PositionJson } from "./position-json.ts";
import { type Allocate, framedJson } from "./record-json.ts";

export type SseEventName = "batch" | "ping" | "error" | "done";

/** The reconnection delay EventSource uses after this stream ends. */
export function sseRetry(ms: number): string {
  return `retry: ${Math.max(0, Math.round(ms))}\n\n`;
}

/**
 * One event. Each line of `data` gets its own `data:` field (the parser joins them with LF),
 * so no text can end the event early; JSON from stringifyJsonExact is always one line.
 */
export function sseEvent(event: SseEventName, data: string, id?: string): string {
  const idLine = id === undefined ? "" : `id: ${id}\n`;
  // All JSON is one line: no split and join, which would copy the text twice.
  if (!data.includes("\n") && !data.includes("\r")) {
    return `event: ${event}\n${idLine}data: ${data}\n\n`;
  }
  const dataLines = data
    .split(/\r\n|\r|\n/)
    .map((line) => `data: ${line}\n`)
    .join("");
  return `event: ${event}\n${idLine}${dataLines}\n`;
}

/**
 * A ReadBatch's event as bytes: `head` is from batchEventHead, `records` the records' JSON
 * without the brackets (recordsJsonBytes), with no line break (JSON escapes them), `tail` the
 * tail's (positionText).
 */
export function batchEventBytes(
  head: string,
  records: ScratchJson,
  tail: string,
  allocate?: Allocate,
): Buffer {
  return framedJson(head, records, batchEventTail(tail), allocate);
}

/**
 * A batch event up to its records: the part that differs between subscribers (the id) and, on
 * a multiplexed subscription, between its streams (the stream's name).
 */
export function batchEventHead(id: string, stream?: string): string {
  const named = stream === undefined ? "" : `"stream":${stringifyJsonExact(stream)},`;
  return `event: batch\nid: ${id}\ndata: {${named}"records":[`;
}

/** A batch event after its head, the same for every subscriber: written once, sent to many. */
export function batchEventRest(records: ScratchJson, tail: string, allocate?: Allocate): Buffer {
  return framedJson("", records, batchEventTail(tail), allocate);
}

const batchEventTail = (tail: string) => `],"tail":${tail}}\n\n`;

export interface PingJson {
  /** The gateway's clock when the ping was sent. */
  timestamp_ms: ExactInt;
  tail: PositionJson;
}

/** A multiplexed subscription's ping: every stream's tail, by the stream's name. */
export interface MultiplexPingJson {
  timestamp_ms: ExactInt;
  tails: Record<string, PositionJson>;
}

/** A ping; a multiplexed one carries the subscription's id, which may have moved with a tail. */
export function pingEvent(ping: PingJson | MultiplexPingJson, id?: string): string {
  return sseEvent("ping", stringifyJsonExact(ping), id);
}

export function errorEvent(body: ErrorBody): string {
  return sseEvent("error", stringifyJsonExact(body));
}

/**
 * The session's bounds were met, or its stream is closed and read to the end (`closed: true`);
 * on a multiplexed subscription, the named stream's. `next` is where a following read would start.
 */
export function doneEvent(next: PositionJson, stream?: string, closed = false): string {
  const body = stream === undefined ? { next } : { stream, next };
  return sseEvent("done", stringifyJsonExact(closed ? { ...body, closed: true } : body));
}
