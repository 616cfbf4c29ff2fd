// A void log object (docs/storage-layout.md, "Voids and fences"): what a log number holds when it
// must never hold records. A star voids the number of a log PUT that failed (so the PUT, if it
// lands late, finds the number taken), and a member taking over a lost star's log voids the
// numbers that star may still write (its fence). Readers of a log pass voids over.

/** `4e 56 4c 56`, ASCII `NVLV`, then the JSON below. */
export const VOID_MAGIC = Buffer.from("NVLV", "latin1");

export interface LogVoid {
  /** The star that wrote the void: the log's own star, or the member fencing it. */
  by: string;
  /** The lease epoch of the writer when it wrote the void. */
  epoch: number;
}

export function encodeLogVoid(v: LogVoid): Buffer {
  return Buffer.concat([VOID_MAGIC, Buffer.from(JSON.stringify({ by: v.by, epoch: v.epoch }))]);
}

/**
 * Whether a void is one the log of `star` wrote itself at its own number in `epoch` (a PUT that
 * failed): the log goes on past such a void. A fence's names the fencer, or the same star's
 * later epoch (its restart), and stops the log.
 */
export function isOwnVoid(v: LogVoid | undefined, star: string, epoch: number): boolean {
  return v?.by === star && v.epoch === epoch;
}

/** The void a log object is, or undefined when it is not one (a log object, or damage). */
export function decodeLogVoid(bytes: Uint8Array): LogVoid | undefined {
  if (bytes.length < VOID_MAGIC.length) return undefined;
  if (!Buffer.from(bytes.buffer, bytes.byteOffset, VOID_MAGIC.length).equals(VOID_MAGIC)) {
    return undefined;
  }
  try {
    const v = JSON.parse(
      Buffer.from(bytes).subarray(VOID_MAGIC.length).toString("utf8"),
    ) as LogVoid;
    if (typeof v.by !== "string" || !Number.isSafeInteger(v.epoch)) return undefined;
    return { by: v.by, epoch: v.epoch };
  } catch {
    return undefined;
  }
}
