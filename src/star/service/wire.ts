// Star-internal values to proto messages (uint64/int64 as exact decimal strings).
import type { DecodedChunkRecord } from "../../contract/codec/index.ts";
import type { Position } from "../../gen/nova/v1/Position.ts";
import type { Record } from "../../gen/nova/v1/Record.ts";
import type { AppendAck, Pos } from "../stream/stream-log.ts";

export const position = (p: Pos): Position => ({
  seq_num: p.seqNum.toString(),
  timestamp_ms: p.timestampMs.toString(),
});

export const record = (r: DecodedChunkRecord): Record => ({
  seq_num: r.seqNum.toString(),
  timestamp_ms: r.timestampMs.toString(),
  body: r.body,
  headers: r.headers,
});

export const appendResponse = (ack: AppendAck) => ({
  start: position(ack.start),
  end: position(ack.end),
  tail: position(ack.tail),
  duplicate: ack.duplicate === true,
  closed: ack.closed === true,
  ...(ack.producerSeq === undefined ? {} : { producer_seq: ack.producerSeq.toString() }),
});
