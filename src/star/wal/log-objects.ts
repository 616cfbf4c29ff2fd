// Reading a star's log objects back from storage, in log order: for replay when the star
// starts, and for a member serving a stopped leader's unsettled records. Every such read goes
// through LogReader, which applies the one damage rule (damage-rule.ts): torn objects among the
// newest are passed over with a warning; any other damage fails the read UNAVAILABLE, naming the
// object, with a log line and a count in StarStats.
import { pMapIterable } from "p-map";
import type { Logger } from "pino";
import {
  CorruptionError,
  type DecodedLogEntry,
  decodeLogObject,
  decodeLogVoid,
} from "../../contract/codec/index.ts";
import type { ObjectStore } from "../../platform/objstore/index.ts";
import { logDamaged, type StarError } from "../errors.ts";
import { epochOfLogNumber, logPrefix, parseLogKey } from "../storage/keys.ts";
import { gapDamage, LogDamageError, type LogObjectOutline, tornToPassOver } from "./damage-rule.ts";

export interface LogObject extends LogObjectOutline {
  /** Undefined when it does not decode (`damage` says why). */
  entries: DecodedLogEntry[] | undefined;
  /** A void: a number whose PUT failed, or a fence's (docs/fleet.md); it holds no entries. */
  void: boolean;
}

/** A log object that decodes. */
export interface DecodedLogObject extends LogObject {
  entries: DecodedLogEntry[];
}

/** What readers met since the star started, for StarStats. */
export interface LogReadStats {
  /** Torn log objects passed over, each counted once. */
  tornPassedOver: number;
  /** Reads refused: a damaged object not among the newest, or a stream's entries at a gap. */
  damageErrors: number;
}

/**
 * Object-store requests of a takeover's log work in flight at once: reading a star's log
 * objects, and replaying its streams.
 */
export const LOG_WORK_CONCURRENCY = 16;

/** `starId`'s log objects in storage, every epoch, in log order (their keys sort as their numbers). */
export async function listLogNumbers(
  store: ObjectStore,
  starId: string,
): Promise<{ key: string; number: bigint }[]> {
  const listed: { key: string; number: bigint }[] = [];
  for await (const obj of store.listAll(logPrefix(starId))) {
    const number = parseLogKey(starId, obj.key);
    if (number !== undefined) listed.push({ key: obj.key, number });
  }
  return listed;
}

/**
 * Every log object of `starId`'s epoch `epoch` (default: the newest epoch in storage; older
 * ones hold only what their fencing left, docs/fleet.md) in order; one deleted between the
 * listing and its read is skipped (its entries were settled), one that does not decode comes
 * without entries, and a void (a number whose PUT failed, or a fence's) comes with none: it
 * holds nothing, but its number is taken, so a replay goes past it (and leaves it: voids stay,
 * docs/storage-layout.md).
 */
async function* readLogObjects(
  store: ObjectStore,
  starId: string,
  epoch?: number,
): AsyncIterable<LogObject> {
  const listed = await listLogNumbers(store, starId);
  const last = listed.at(-1);
  const wanted = epoch ?? (last === undefined ? 0 : epochOfLogNumber(last.number));
  // Read several at once (a takeover waits on this), yielded in log order.
  const reads = pMapIterable(
    listed.filter(({ number }) => epochOfLogNumber(number) === wanted),
    async ({ key, number }) => ({ key, number, bytes: await store.get(key) }),
    { concurrency: LOG_WORK_CONCURRENCY },
  );
  for await (const { key, number, bytes } of reads) {
    if (bytes === undefined) continue;
    if (decodeLogVoid(bytes) !== undefined) {
      yield { key, number, entries: [], damage: undefined, void: true };
      continue;
    }
    try {
      yield { key, number, entries: decodeLogObject(bytes), damage: undefined, void: false };
    } catch (err) {
      if (!(err instanceof CorruptionError)) throw err;
      yield { key, number, entries: undefined, damage: err.message, void: false };
    }
  }
}

export class LogReader {
  readonly #store: ObjectStore;
  readonly #inFlight: number;
  readonly #log: Logger;
  /** Per star, the torn objects last passed over: each is warned about and counted once. */
  readonly #reported = new Map<string, Set<string>>();
  readonly stats: LogReadStats = { tornPassedOver: 0, damageErrors: 0 };

  /**
   * `inFlight`: the log PUTs a star may have had in flight when it stopped; this star's own
   * --log-puts-in-flight, which every member of a fleet is given alike.
   */
  constructor(store: ObjectStore, inFlight: number, log: Logger) {
    this.#store = store;
    this.#inFlight = inFlight;
    this.#log = log;
  }

  /** Every log object of `starId` (of `epoch`, else its newest) in log order: those that decode, and the torn passed over. */
  async readAll(
    starId: string,
    epoch?: number,
  ): Promise<{ decoded: DecodedLogObject[]; passedOver: LogObjectOutline[] }> {
    const objects: LogObject[] = [];
    for await (const object of readLogObjects(this.#store, starId, epoch)) objects.push(object);
    const passedOver = this.#judge(starId, objects);
    const decoded = objects.filter((o): o is DecodedLogObject => o.entries !== undefined);
    return { decoded, passedOver };
  }

  /** One stream's entries in `starId`'s log objects, in log order. */
  async streamEntries(starId: string, streamId: string): Promise<DecodedLogEntry[]> {
    const outlines: LogObjectOutline[] = [];
    const out: DecodedLogEntry[] = [];
    for await (const { entries, ...outline } of readLogObjects(this.#store, starId)) {
      outlines.push(outline);
      for (const e of entries ?? []) if (e.streamId === streamId) out.push(e);
    }
    this.#judge(starId, outlines);
    return out;
  }

  /**
   * The error for a read that reached `gapAt`, where a stream's entries in `starId`'s log stop
   * while later ones go on: counted and logged, for the caller to throw.
   */
  gap(starId: string, streamId: string, gapAt: bigint): StarError {
    return this.#refuse(starId, gapDamage(starId, streamId, gapAt));
  }

  #judge(starId: string, objects: readonly LogObjectOutline[]): LogObjectOutline[] {
    let torn: LogObjectOutline[];
    try {
      torn = tornToPassOver(objects, this.#inFlight);
    } catch (err) {
      if (err instanceof LogDamageError) throw this.#refuse(starId, err);
      throw err;
    }
    const before = this.#reported.get(starId);
    for (const o of torn) {
      if (before?.has(o.key)) continue;
      this.stats.tornPassedOver++;
      this.#log.warn(
        { star: starId, key: o.key, damage: o.damage },
        "torn log object passed over: its PUT was cut short by a stop, so nothing in it was acked",
      );
    }
    if (torn.length > 0) this.#reported.set(starId, new Set(torn.map((o) => o.key)));
    else this.#reported.delete(starId);
    return torn;
  }

  #refuse(starId: string, err: LogDamageError): StarError {
    this.stats.damageErrors++;
    this.#log.error({ star: starId, damage: err.message }, "log read refused: damaged log");
    return logDamaged(`${err.message}; retry once the log is repaired`, {
      starId,
      objectKey: err.objectKey,
      streamId: err.gap?.streamId,
      missingSeqNum: err.gap?.seqNum,
    });
  }
}
