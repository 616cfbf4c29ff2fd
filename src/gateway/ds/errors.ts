// nova's errors as the Durable Streams protocol answers them: its statuses and headers (a
// closed stream's Stream-Closed and final offset, a fenced producer's epoch, a sequence gap's
// expected and received seqs), with nova's error body.
import { HttpError } from "../errors/index.ts";
import { offsetOf } from "./offsets.ts";

export function toDsError(err: HttpError): HttpError {
  const f = err.fields;
  switch (err.code) {
    case "stream_closed": {
      const tail = (f.tail as { seq_num?: bigint } | undefined)?.seq_num;
      return withHeaders(err, 409, {
        "stream-closed": "true",
        ...(tail === undefined ? {} : { "stream-next-offset": offsetOf(tail) }),
      });
    }
    case "producer_fenced":
      return withHeaders(err, 403, { "producer-epoch": String(f.current_epoch) });
    case "producer_seq_gap":
      // A new epoch must start at 0: the protocol calls another start a bad request.
      if (f.expected_seq === 0n && f.unknown_producer === false) {
        return withHeaders(err, 400, {}, "a new producer epoch starts at Producer-Seq 0");
      }
      return withHeaders(err, 409, {
        "producer-expected-seq": String(f.expected_seq),
        "producer-received-seq": String(f.received_seq),
      });
    case "range_not_satisfiable":
      return withHeaders(err, 400, {}, "offset: beyond the stream's tail");
    default:
      return err;
  }
}

/**
 * A read from `from` whose first retained record is `first`: past it, a trim took the records
 * between, which a read that went on from `first` would hide, so it is a 410 (the protocol's
 * "before the earliest retained position").
 */
export function checkRetained(from: bigint, first: bigint): void {
  if (first <= from) return;
  throw new HttpError(
    410,
    "gone",
    `offset: ${offsetOf(from)} was trimmed; the stream's retained records start at ${offsetOf(first)}: read from there, or from -1`,
  );
}

function withHeaders(
  err: HttpError,
  status: number,
  headers: Record<string, string>,
  message = err.message,
): HttpError {
  return new HttpError(status, err.code, message, {
    fields: err.fields,
    headers: { ...err.headers, ...headers },
    retryable: err.retryable,
    cause: err,
  });
}
