// Who answers what in a fleet. Leader-only verbs (producers, CheckTail, Trim, Fence,
// DeleteStream, ReconfigureStream) on another member answer FAILED_PRECONDITION with NotOwner
// naming the leader; descriptor writes that every member accepts (CreateStream, bucket verbs)
// are passed on to the leader, which alone writes them.
import type { StarContext } from "../context.ts";
import { failedPrecondition, type StarError, unavailable } from "../errors.ts";
import { isForwarded } from "./forward.ts";
import type { Member } from "./members.ts";

export function notOwner(leader: Member, what: string): StarError {
  return failedPrecondition(
    `this star does not lead ${what}: star ${leader.name} at ${leader.address} does`,
    [{ type: "NotOwner", value: { leader_id: leader.name, leader_address: leader.address } }],
  );
}

const streamName = (bucket: string, key: string) =>
  `stream ${JSON.stringify(key)} in bucket ${JSON.stringify(bucket)}`;

/**
 * Throws NotOwner unless this star leads the stream, and UNAVAILABLE while its lease has lapsed
 * by its own clock: a member that resumes after a pause must not answer from what it held (a
 * producer's seq, a tail) before its next renewal tells it whether it was taken over.
 */
export function requireLeader(ctx: StarContext, bucket: string, key: string): void {
  const leader = ctx.fleet.leaderOf(bucket, key);
  if (leader !== ctx.fleet.self) throw notOwner(leader, streamName(bucket, key));
  if (ctx.lease?.lapsed) {
    throw unavailable(
      `star ${ctx.id}'s lease may have lapsed (it was paused or starved); retry: another member may lead ${streamName(bucket, key)} now`,
    );
  }
}

/**
 * The member to pass a stream's descriptor write to, or undefined when this star leads it. A
 * call another star already passed on is not passed on again: it answers NotOwner.
 */
export function streamWriter(ctx: StarContext, bucket: string, key: string): Member | undefined {
  const leader = ctx.fleet.leaderOf(bucket, key);
  if (leader === ctx.fleet.self) return undefined;
  if (isForwarded()) throw notOwner(leader, streamName(bucket, key));
  return leader;
}

/** As streamWriter, for a bucket's own descriptor. */
export function bucketWriter(ctx: StarContext, bucket: string): Member | undefined {
  const leader = ctx.fleet.bucketLeaderOf(bucket);
  if (leader === ctx.fleet.self) return undefined;
  if (isForwarded()) throw notOwner(leader, `bucket ${JSON.stringify(bucket)}`);
  return leader;
}
