// The one rule for damage that every reader of a star's log objects applies (replay at start,
// a member serving a stopped leader's records, any takeover): they read the log only through
// LogReader (log-objects.ts), which applies it (docs/storage-layout.md, "Damaged log objects").
// A log object that does not decode is torn, and passed over, only when it is among its star's
// newest `--log-puts-in-flight` objects: only their PUTs can have been cut short by a stop (a
// failed PUT's object is deleted before the next PUT starts), so nothing in it was acknowledged.
// Any other damaged object may hold acknowledged records, and a stream whose entries stop at a
// gap has lost some: both are errors naming what is damaged, never a silently shorter read.

/** A log object as listed and read; `damage` says why it does not decode, when it does not. */
export interface LogObjectOutline {
  key: string;
  number: bigint;
  damage: string | undefined;
}

/** Log objects that cannot be read without losing acknowledged records. */
export class LogDamageError extends Error {
  /** The damaged object; undefined for a gap. */
  readonly objectKey: string | undefined;
  /** For a gap: the stream, and the first of its records that is missing. */
  readonly gap: { streamId: string; seqNum: bigint } | undefined;

  constructor(
    message: string,
    where: { objectKey: string } | { gap: { streamId: string; seqNum: bigint } },
  ) {
    super(message);
    this.name = "LogDamageError";
    this.objectKey = "objectKey" in where ? where.objectKey : undefined;
    this.gap = "gap" in where ? where.gap : undefined;
  }
}

/**
 * The objects a reader passes over as torn: every damaged one, when all are among the newest
 * `inFlight` by number. Otherwise a LogDamageError naming the oldest damaged object.
 */
export function tornToPassOver<T extends LogObjectOutline>(
  objects: readonly T[],
  inFlight: number,
): T[] {
  const torn = objects.filter((o) => o.damage !== undefined);
  if (torn.length === 0) return [];
  let newest = torn[0] as T;
  let oldestTorn = newest;
  for (const o of objects) if (o.number > newest.number) newest = o;
  for (const o of torn) if (o.number < oldestTorn.number) oldestTorn = o;
  if (oldestTorn.number > newest.number - BigInt(inFlight)) return torn;
  throw new LogDamageError(
    `log object ${oldestTorn.key} is damaged (${oldestTorn.damage}) and is not among the ` +
      `newest ${inFlight} (--log-puts-in-flight; the newest is ${newest.key}), so records ` +
      "acknowledged in it cannot be read",
    { objectKey: oldestTorn.key },
  );
}

/** A stream whose entries in `starId`'s log stop at `gapAt` while later ones go on. */
export function gapDamage(starId: string, streamId: string, gapAt: bigint): LogDamageError {
  return new LogDamageError(
    `stream ${streamId} has no record ${gapAt} in its chunks or in star ${starId}'s log ` +
      "objects, while later records are there: a log object or chunk holding it is missing",
    { gap: { streamId, seqNum: gapAt } },
  );
}
