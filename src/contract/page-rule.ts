// Where a page of records ends, written once for the star's Read (from its log, from chunks, and
// as a follower), the gateway's reads from object storage and the test model of a star, so that
// a page assembled from chunks and Read calls ends exactly where one Read would: a record stamped
// at or after `untilMs` ends it; past the first record, one that would exceed the record or
// content-byte budget ends it. The first record is always taken, however large.
export class PageRule {
  readonly maxRecords: number;
  readonly maxBytes: number;
  readonly untilMs: bigint | undefined;
  records = 0;
  bytes = 0;

  constructor(maxRecords: number, maxBytes: number, untilMs?: bigint) {
    this.maxRecords = maxRecords;
    this.maxBytes = maxBytes;
    this.untilMs = untilMs;
  }

  /** Whether a record stamped `timestampMs` of `size` content bytes belongs on the page. */
  admits(timestampMs: bigint, size: number): boolean {
    if (this.untilMs !== undefined && timestampMs >= this.untilMs) return false;
    return this.fits(size);
  }

  /** Whether a record of `size` content bytes fits the budgets (the first one always does). */
  fits(size: number): boolean {
    if (this.records === 0) return true;
    return this.records < this.maxRecords && this.bytes + size <= this.maxBytes;
  }

  /** No record more fits the record budget. */
  get full(): boolean {
    return this.records >= this.maxRecords;
  }

  take(size: number): void {
    this.records++;
    this.bytes += size;
  }

  /** Budgets left for a Read call continuing this page: 0 means "no limit" to the star. */
  remaining(): { count: number; bytes: number } {
    const count = this.maxRecords - this.records;
    const bytes = this.maxBytes - this.bytes;
    // A spent byte budget takes only a record of zero content bytes: ask for one record. One
    // Read stops at the first record that does not fit; a Read starting at that record takes it
    // as its first and would look at the one after, whose chunk the one Read never loads.
    if (bytes <= 0) return { count: 1, bytes: 1 };
    return {
      count: Number.isFinite(count) ? Math.max(count, 1) : 0,
      // A record of zero content bytes still fits a spent byte budget; ask for at least one.
      bytes: Number.isFinite(bytes) ? Math.max(bytes, 1) : 0,
    };
  }
}
