// The two wire forms of an SSE session. One stream: ids `<seq_num>,<count>,<bytes>`, events as
// they always were. Multiplexed: each batch and done names its stream, every id (pings'
// included) holds every stream's position, and a ping carries every stream's tail.
import { errorBody, HttpError, toHttpError } from "../../errors/index.ts";
import type { Int64Mode, PositionJson } from "../../translate/index.ts";
import {
  batchEventHead,
  doneEvent,
  errorEvent,
  formatMultiplexId,
  pingEvent,
  positionToJson,
} from "../../translate/index.ts";
import type { SseLane } from "./sse-lane.ts";

export interface SseForm {
  /** A batch event of `lane` up to its records. */
  batchHead(lanes: readonly SseLane[], lane: SseLane): string;
  ping(lanes: readonly SseLane[], int64: Int64Mode): string;
  done(lane: SseLane, int64: Int64Mode): string;
  /** The error event ending the session; `lane` when one stream failed. */
  error(err: unknown, lanes: readonly SseLane[], int64: Int64Mode, lane?: SseLane): string;
  /** A lane's failure before the response began, as the request's error. */
  startError(err: unknown, lane: SseLane): unknown;
}

export const ONE_STREAM: SseForm = {
  batchHead: (_lanes, lane) => batchEventHead(lane.lastIdText as string),
  ping: (lanes, int64) =>
    pingEvent({ timestamp_ms: BigInt(Date.now()), tail: positionToJson(only(lanes).tail, int64) }),
  done: (lane, int64) => doneEvent(nextJson(lane, int64), undefined, lane.closed),
  error: (err, lanes, int64) => {
    const body = errorBody(toHttpError(err, { resource: "stream" }), int64);
    const id = only(lanes).lastIdText;
    if (id) body.last_event_id = id;
    return errorEvent(body);
  },
  startError: (err) => err,
};

/** The form of a subscription to the streams `names`, in the order of its lanes. */
export function multiplexed(names: readonly string[]): SseForm {
  const name = (lane: SseLane) => names[lane.index] as string;
  const id = (lanes: readonly SseLane[]) => formatMultiplexId(lanes.map((l) => l.position));
  return {
    batchHead: (lanes, lane) => batchEventHead(id(lanes), name(lane)),
    ping: (lanes, int64) => {
      const tails: Record<string, PositionJson> = {};
      for (const lane of lanes) tails[name(lane)] = positionToJson(lane.tail, int64);
      return pingEvent({ timestamp_ms: BigInt(Date.now()), tails }, id(lanes));
    },
    done: (lane, int64) => doneEvent(nextJson(lane, int64), name(lane), lane.closed),
    error: (err, lanes, int64, lane) => {
      const http = lane ? named(err, name(lane)) : toHttpError(err, { resource: "stream" });
      return errorEvent({ ...errorBody(http, int64), last_event_id: id(lanes) });
    },
    startError: (err, lane) => named(err, name(lane)),
  };
}

/** The error with the stream it concerns in its message and as a `stream` field. */
function named(err: unknown, stream: string): HttpError {
  const http = toHttpError(err, { resource: "stream" });
  return new HttpError(http.status, http.code, `${stream}: ${http.message}`, {
    retryable: http.retryable,
    fields: { ...http.fields, stream },
    ...(http.headers === undefined ? {} : { headers: http.headers }),
  });
}

function nextJson(lane: SseLane, int64: Int64Mode): PositionJson {
  const next = lane.next;
  return positionToJson(
    { seq_num: next.seq_num.toString(), timestamp_ms: next.timestamp_ms },
    int64,
  );
}

function only(lanes: readonly SseLane[]): SseLane {
  return lanes[0] as SseLane;
}
