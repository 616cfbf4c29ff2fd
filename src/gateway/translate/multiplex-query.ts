// The streams of a multiplexed subscription: `?stream=<bucket>/<key>[;<option>=<value>...]`,
// repeated, each with its own start and bounds under the single-stream read's names. The key
// is percent-encoded as in a path (inside the query's own encoding), so it may hold any
// character, `;` and `/` included.
import { badQuery, type FieldError } from "../errors/index.ts";
import { checkBucketName, checkStreamKey } from "./names.ts";
import type { Query } from "./query-params.ts";
import { parseReadQuery, type ReadQuery } from "./read-query.ts";

export const STREAM_PARAM = "stream";

/** What each stream of a multiplexed subscription may set for itself. */
export const STREAM_OPTIONS = [
  "seq_num",
  "timestamp_ms",
  "tail_offset",
  "count",
  "bytes",
  "until_ms",
  "clamp",
] as const;

export interface StreamSpec {
  bucket: string;
  key: string;
  /** `<bucket>/<key>` with the key as it is: how events name the stream. */
  name: string;
  query: ReadQuery;
}

/** The streams in the order given; refuses none, too many, a malformed one or one named twice. */
export function parseStreamSpecs(query: Query, maxStreams: number): StreamSpec[] {
  const given = query[STREAM_PARAM];
  const values = given === undefined ? [] : Array.isArray(given) ? given : [given];
  if (values.length === 0) {
    throw badQuery(STREAM_PARAM, "name at least one stream as <bucket>/<key>");
  }
  if (values.length > maxStreams) {
    throw badQuery(
      STREAM_PARAM,
      `names ${values.length} streams; one subscription follows at most ${maxStreams}`,
    );
  }
  const seen = new Map<string, number>();
  return values.map((value, i) => {
    const field = `${STREAM_PARAM}[${i}]`;
    if (typeof value !== "string") throw badQuery(field, "must be a string");
    const spec = parseStreamSpec(value, field);
    const before = seen.get(spec.name);
    if (before !== undefined) {
      throw badQuery(
        field,
        `names ${JSON.stringify(spec.name)} again (as ${STREAM_PARAM}[${before}]); name each stream once`,
      );
    }
    seen.set(spec.name, i);
    return spec;
  });
}

function parseStreamSpec(value: string, field: string): StreamSpec {
  const [address = "", ...options] = value.split(";");
  const slash = address.indexOf("/");
  if (slash === -1) {
    throw badQuery(field, `must be <bucket>/<key>[;option=value...], not ${quote(value)}`);
  }
  const bucket = checkBucketName(address.slice(0, slash), `${field}.bucket`, badQuery);
  let decoded: string;
  try {
    decoded = decodeURIComponent(address.slice(slash + 1));
  } catch {
    throw badQuery(`${field}.key`, "is not valid percent-encoding of UTF-8");
  }
  const key = checkStreamKey(decoded, `${field}.key`, badQuery);
  const err: FieldError = (name, reason) => badQuery(`${field}.${name}`, reason);
  return {
    bucket,
    key,
    name: `${bucket}/${key}`,
    query: parseReadQuery(optionQuery(options, err), err),
  };
}

function optionQuery(options: string[], err: FieldError): Query {
  const query: Record<string, string> = {};
  for (const option of options) {
    const eq = option.indexOf("=");
    const name = eq === -1 ? option : option.slice(0, eq);
    if (!(STREAM_OPTIONS as readonly string[]).includes(name)) {
      throw err(name, `is not a stream option; one of ${STREAM_OPTIONS.join(", ")}`);
    }
    if (eq === -1) throw err(name, "needs a value: <option>=<value>");
    if (Object.hasOwn(query, name)) throw err(name, "is given more than once");
    query[name] = option.slice(eq + 1);
  }
  return query;
}

function quote(text: string): string {
  return JSON.stringify(text.length > 80 ? `${text.slice(0, 80)}...` : text);
}
