// Command records, in S2's form (docs/commands.md): a record whose one header has an empty name
// is a command. ["", "fence"] carries the new fencing token as its body (UTF-8, at most 48
// bytes; empty clears it), ["", "trim"] the seq_num to trim to as 8 bytes, big-endian. They take
// a seq_num and are read back like any record; the leader applies them as their batch commits,
// so a fence is conditioned (match_seq_num, fencing_token) like the batch that carries it.
import { isUtf8 } from "node:buffer";
import { MAX_FENCING_TOKEN_BYTES } from "../../contract/wire-limits.ts";

export type Command = { kind: "fence"; token: string } | { kind: "trim"; seqNum: bigint };

interface RecordLike {
  headers: readonly { name: Uint8Array; value: Uint8Array }[];
  body: Uint8Array;
}

export class CommandError extends Error {}

const TRIM_BODY_BYTES = 8;

/**
 * The record's command; undefined for a record with no empty-named header. Throws
 * CommandError, saying which rule, for an empty-named header that is not a command.
 */
export function commandOf(record: RecordLike): Command | undefined {
  const { headers, body } = record;
  if (!headers.some((h) => h.name.length === 0)) return undefined;
  const [op] = headers;
  if (headers.length !== 1 || op === undefined) {
    throw new CommandError(
      'a header with an empty name marks a command record, which has that one header only: ["", "fence"] or ["", "trim"]',
    );
  }
  const name = Buffer.from(op.value).toString("latin1");
  if (name === "fence") {
    if (!isUtf8(body)) throw new CommandError("a fence's body, the new token, must be UTF-8");
    if (body.length > MAX_FENCING_TOKEN_BYTES) {
      throw new CommandError(
        `a fence's body, the new token, is ${body.length} bytes, at most ${MAX_FENCING_TOKEN_BYTES} allowed`,
      );
    }
    return { kind: "fence", token: Buffer.from(body).toString("utf8") };
  }
  if (name === "trim") {
    if (body.length !== TRIM_BODY_BYTES) {
      throw new CommandError(
        `a trim's body is the seq_num to trim to, ${TRIM_BODY_BYTES} bytes big-endian, not ${body.length}`,
      );
    }
    return { kind: "trim", seqNum: Buffer.from(body).readBigUInt64BE(0) };
  }
  throw new CommandError(
    `${JSON.stringify(name)} is not a command: an empty header name marks a command record, "fence" or "trim"`,
  );
}

const TRIM = Buffer.from("trim", "latin1");

/**
 * Whether a record of the batch is a trim command, or names one however malformed (validation
 * refuses that later): such a batch needs the trim scope as well as append.
 */
export function carriesTrim(records: readonly RecordLike[]): boolean {
  return records.some((r) => r.headers.some((h) => h.name.length === 0 && TRIM.equals(h.value)));
}

/** A trim command's body: `seqNum` as 8 bytes, big-endian. */
export function trimBody(seqNum: bigint): Buffer {
  const body = Buffer.alloc(TRIM_BODY_BYTES);
  body.writeBigUInt64BE(seqNum);
  return body;
}

/** What a run of commands leaves: the last fence's token, and the highest trim point. */
export interface CommandEffect {
  fencingToken?: string;
  trimTo?: bigint;
}

/**
 * Folds `command` into `effect`. A trim is applied clamped to the end of the commit that carries
 * it (the log entry), where the leader and replay both know where that is.
 */
export function foldCommand(effect: CommandEffect, command: Command): CommandEffect {
  if (command.kind === "fence") return { ...effect, fencingToken: command.token };
  return effect.trimTo !== undefined && effect.trimTo >= command.seqNum
    ? effect
    : { ...effect, trimTo: command.seqNum };
}
