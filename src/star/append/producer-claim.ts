// A batch's producer stamp from the wire: the id's length rule, the numbers exact.
import type { Producer__Output } from "../../gen/nova/v1/Producer.ts";
import { invalidArgument } from "../errors.ts";
import type { ProducerClaim } from "../producers/producer-rules.ts";

export const MAX_PRODUCER_ID_CHARS = 128;

export function producerClaim(p: Producer__Output | null | undefined): ProducerClaim | undefined {
  if (!p) return undefined;
  const chars = [...p.id].length;
  if (chars < 1 || chars > MAX_PRODUCER_ID_CHARS) {
    throw invalidArgument(
      `producer id is ${chars} characters; it needs 1 to ${MAX_PRODUCER_ID_CHARS}`,
    );
  }
  return { id: p.id, epoch: BigInt(p.epoch), seq: BigInt(p.seq) };
}
