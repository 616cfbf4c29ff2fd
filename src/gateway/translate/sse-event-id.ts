// The SSE `batch` event id, `<seq_num>,<count>,<bytes>`: the batch's last record, and the records
// and content bytes delivered so far in the session, counted across reconnects. It is the resume
// token a client sends back as Last-Event-ID (or ?last_event_id=).
import { badHeader, badQuery, type FieldError } from "../errors/index.ts";
import { UINT64 } from "./integers.ts";
import { type Query, queryParam } from "./query-params.ts";

export interface EventId {
  /** The last record delivered. */
  seq_num: bigint;
  /** Records delivered so far in the session. */
  count: bigint;
  /** Content bytes delivered so far in the session. */
  bytes: bigint;
}

export const LAST_EVENT_ID_HEADER = "last-event-id";
export const LAST_EVENT_ID_QUERY = "last_event_id";

const PART = /^[0-9]{1,20}$/;

export function formatEventId(id: EventId): string {
  return `${id.seq_num},${id.count},${id.bytes}`;
}

/** Parses an event id; `field` names where it came from in the error. */
export function parseEventId(text: string, field: string, err: FieldError): EventId {
  const parts = text.split(",");
  const expected = `must be "seq_num,count,bytes" as sent in a batch event's id, not ${JSON.stringify(
    text.length > 80 ? `${text.slice(0, 80)}...` : text,
  )}`;
  if (parts.length !== 3 || !parts.every((p) => PART.test(p))) throw err(field, expected);
  const [seq, count, bytes] = parts.map(BigInt) as [bigint, bigint, bigint];
  if (seq > UINT64.max || count > UINT64.max || bytes > UINT64.max) throw err(field, expected);
  // Resuming starts after seq_num, which must itself be a seq_num that has a successor.
  if (seq === UINT64.max) throw err(field, "seq_num has no successor to resume from");
  return { seq_num: seq, count, bytes };
}

/**
 * The resume point of a request: the Last-Event-ID header (what EventSource sends on reconnect,
 * so the most recent) wins over ?last_event_id= (what a client puts in the first URL). Empty
 * means none.
 */
export function resumeEventId(
  header: string | string[] | undefined,
  query: Query,
): EventId | undefined {
  return resumeWith(header, query, parseEventId);
}

/** The resume point given by header or query, parsed by `parse` (one stream's or multiplexed). */
export function resumeWith<T>(
  header: string | string[] | undefined,
  query: Query,
  parse: (text: string, field: string, err: FieldError) => T,
): T | undefined {
  if (Array.isArray(header)) throw badHeader(LAST_EVENT_ID_HEADER, "is given more than once");
  if (header !== undefined && header !== "") return parse(header, LAST_EVENT_ID_HEADER, badHeader);
  const fromQuery = queryParam(query, LAST_EVENT_ID_QUERY);
  if (fromQuery === undefined || fromQuery === "") return undefined;
  return parse(fromQuery, LAST_EVENT_ID_QUERY, badQuery);
}
