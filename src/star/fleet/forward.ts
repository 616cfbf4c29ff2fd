// Work a star passes to another member: the caller's credentials go along (the other star
// authorizes the same principal), the deadline is the caller's or forwardDeadlineMs, a caller
// that cancels cancels the passed-on call too (else it would run on to its deadline for no
// one), and the other star's answer comes back as it was (code, message, typed details). A forwarded call is
// marked, so a star that is not the leader either answers NotOwner instead of passing it on
// again: members with different fleet lists can never bounce a call between them.
import { Metadata, type ServiceError, status } from "@grpc/grpc-js";
import type { RequestOf, ResponseOf, UnaryMethod } from "../../contract/proto/index.ts";
import type { StarContext } from "../context.ts";
import { StarError } from "../errors.ts";
import { currentCaller } from "./caller.ts";
import type { Member } from "./members.ts";

/** Names the star that passed the call on. */
export const FORWARDED_BY = "nova-forwarded-by";

/** Whether the call being served was passed on by another star. */
export function isForwarded(): boolean {
  return (currentCaller()?.metadata.get(FORWARDED_BY).length ?? 0) > 0;
}

/** `authorization` replaces the caller's, for work whose need differs from the caller's verb. */
export function forwardMetadata(
  ctx: StarContext,
  incoming = currentCaller()?.metadata,
  authorization?: string,
): Metadata {
  const md = new Metadata();
  if (authorization !== undefined) md.set("authorization", authorization);
  else for (const value of incoming?.get("authorization") ?? []) md.add("authorization", value);
  md.set(FORWARDED_BY, ctx.fleet.self.name);
  return md;
}

export function forwardDeadline(
  ctx: StarContext,
  callerDeadline = currentCaller()?.deadline,
): Date {
  const own = Date.now() + ctx.limits.forwardDeadlineMs;
  if (callerDeadline === undefined || callerDeadline === Infinity) return new Date(own);
  const theirs = callerDeadline instanceof Date ? callerDeadline.getTime() : callerDeadline;
  return new Date(Math.min(own, theirs));
}

/** A failed call to another member as this star's answer. */
export function relayError(member: Member, err: ServiceError): StarError {
  if (err.code === status.UNAVAILABLE || err.code === status.DEADLINE_EXCEEDED) {
    // Name the member: the caller cannot tell an unreachable leader from this star otherwise.
    return StarError.relayed({
      code: err.code,
      details: `star ${member.name} at ${member.address}, which leads this, did not answer: ${err.details}`,
      metadata: err.metadata,
    });
  }
  return StarError.relayed(err);
}

/**
 * Calls a unary verb on another member on behalf of the call being served, with the caller's
 * credentials unless `authorization` is given.
 */
export function callMember<M extends UnaryMethod>(
  ctx: StarContext,
  member: Member,
  method: M,
  request: RequestOf<M>,
  authorization?: string,
): Promise<ResponseOf<M>> {
  const client = ctx.peers.client(member) as unknown as Record<string, unknown>;
  const fn = client[method] as (...args: unknown[]) => { cancel(): void };
  const signal = currentCaller()?.signal;
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(cancelled());
      return;
    }
    const cancel = () => pending.cancel();
    const pending = fn.call(
      client,
      request,
      forwardMetadata(ctx, undefined, authorization),
      { deadline: forwardDeadline(ctx) },
      (err: ServiceError | null, res: ResponseOf<M>) => {
        signal?.removeEventListener("abort", cancel);
        if (err) reject(signal?.aborted ? cancelled() : relayError(member, err));
        else resolve(res);
      },
    );
    signal?.addEventListener("abort", cancel, { once: true });
  });
}

const cancelled = () => new StarError(status.CANCELLED, "the caller cancelled the call");
