// Writer seqs (Durable Streams' Stream-Seq): each append's must sort above the last one taken,
// bytewise as UTF-8, so they only grow.
import { type StarError, writerSeqRegression } from "../errors.ts";

const above = (a: string, b: string) => Buffer.compare(Buffer.from(a), Buffer.from(b)) > 0;

/** A writer seq that does not sort above the last one taken: refused. */
export function writerSeqRefusal(
  seq: string | undefined,
  last: string | undefined,
): StarError | undefined {
  if (seq === undefined || last === undefined) return undefined;
  return above(seq, last) ? undefined : writerSeqRegression(last, seq);
}

/** Of two writer seqs taken (one may be known already), the later one stands. */
export function laterWriterSeq(a: string | undefined, b: string | undefined): string | undefined {
  if (a === undefined || b === undefined) return a ?? b;
  return above(b, a) ? b : a;
}
