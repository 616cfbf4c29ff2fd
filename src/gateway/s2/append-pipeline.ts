// S2 append inputs of one session, in order, with many in flight: batches go down one star
// AppendSession (the star's window bounds them, and it appends them in order), so a session's
// throughput is not one star round trip per batch. S2 applies nothing after a failed input, and
// each input carries its own conditions, so:
// - the star session is opened with end_on_refusal: the first refused batch (a match_seq_num or
//   fencing miss) ends it, and no later batch of it lands, not even one already queued; inputs
//   with match_seq_num are pipelined like the others;
// - an input with a command (fence, trim), or a fencing token other than the open session's, is
//   a barrier: every earlier input is answered first, the session is closed, and it goes alone
//   through the unary path;
// - after any failure every later input fails with it, unsent;
// - a star session that breaks fails its unanswered inputs with "outcome unknown" (they may have
//   landed), as a unary append whose reply was lost does;
// - a star session with nothing unanswered for `idleMs` is ended, and the next input opens
//   another: a client's quiet session does not hold one of the star's --max-sessions slots.
import { type StatusObject, status } from "@grpc/grpc-js";
import type { AppendSessionResponse__Output } from "../../gen/nova/v1/AppendSessionResponse.ts";
import type { AppendSession, CallOptions, Upstream } from "../upstream/index.ts";
import { StarCallError } from "../upstream/index.ts";
import { planAppend, type S2AppendInput } from "./commands.ts";
import { appendAckToS2, type S2AppendAck } from "./records.ts";
import { appendS2, withInstalledToken } from "./service.ts";

interface Address {
  bucket: string;
  key: string;
}

interface Pending {
  resolve(ack: S2AppendAck): void;
  reject(err: unknown): void;
}

interface OpenSession {
  handle: AppendSession;
  token: string | undefined;
  pending: Pending[];
  /** The batch_index the next ack must carry. */
  nextAck: number;
  /** Resolves with the star's final status. */
  ended: Promise<StatusObject>;
  /** Wakes a submit waiting for a slot in the window. */
  wake: (() => void) | undefined;
}

export class S2AppendPipeline {
  readonly #upstream: Upstream;
  readonly #address: Address;
  readonly #call: CallOptions;
  /** The call options with the stream's address, as the upstream routes by it. */
  readonly #route: CallOptions;
  #session: OpenSession | undefined;
  /** The unary input in flight; the next input waits for it. */
  #barrier: Promise<unknown> = Promise.resolve();
  /**
   * The first failure, which every later input gets unsent. A promise: it is recorded the moment
   * the failure is known, while its S2 form (the token installed) may still be looked up.
   */
  #failure: { reason: Promise<unknown> } | undefined;
  readonly #idleMs: number;
  #idle: NodeJS.Timeout | undefined;
  /** Star sessions ended idle and not yet answered with their status; close() waits for them. */
  readonly #releasing = new Set<Promise<unknown>>();

  constructor(upstream: Upstream, address: Address, call: CallOptions, idleMs: number) {
    this.#upstream = upstream;
    this.#address = address;
    this.#call = call;
    this.#route = { ...call, ...address };
    this.#idleMs = idleMs;
  }

  /** Hands the next input on; resolves when the one after may be submitted, with its ack. */
  async submit(input: S2AppendInput): Promise<{ ack: Promise<S2AppendAck> }> {
    await this.#barrier.catch(() => {});
    const failed = this.#failed();
    if (failed) return failed;
    let plan: ReturnType<typeof planAppend>;
    try {
      plan = planAppend(input);
    } catch (err) {
      return { ack: this.#fail(err) };
    }
    // A fence record changes the token the star session was opened with: such a batch goes
    // alone and unary, as does one under another token than the session's.
    if (
      plan.commands ||
      (this.#session !== undefined && this.#session.token !== plan.batch.fencing_token)
    ) {
      await this.close();
      const closedFailed = this.#failed();
      if (closedFailed) return closedFailed;
      const ack = appendS2(this.#upstream, this.#address, input, this.#call).catch((err) =>
        this.#fail(err),
      );
      this.#barrier = ack;
      return { ack };
    }
    const { batch } = plan;
    let session = this.#session;
    if (!session) {
      try {
        session = await this.#open(batch.fencing_token);
      } catch (err) {
        return { ack: this.#fail(await this.#s2Error(err)) };
      }
    }
    while (session.pending.length >= Math.max(1, session.handle.opened.window)) {
      const open = session;
      await new Promise<void>((resolve) => {
        open.wake = resolve;
      });
      const waitFailed = this.#failed();
      if (waitFailed) return waitFailed;
      if (this.#session !== open) return this.submit(input);
    }
    clearTimeout(this.#idle);
    const ack = new Promise<S2AppendAck>((resolve, reject) => {
      (session as OpenSession).pending.push({ resolve, reject });
    });
    session.handle.call.write({
      batch: {
        records: batch.records,
        ...(batch.match_seq_num === undefined ? {} : { match_seq_num: batch.match_seq_num }),
      },
    });
    return { ack };
  }

  /** Ends the star session after its batches are answered; waits for its final status. */
  async close(): Promise<void> {
    clearTimeout(this.#idle);
    const session = this.#session;
    if (session) {
      session.handle.call.end();
      await session.ended;
    }
    await Promise.all(this.#releasing);
  }

  /** Ends the star session once nothing is unanswered on it for idleMs. */
  #releaseWhenIdle(session: OpenSession): void {
    clearTimeout(this.#idle);
    this.#idle = setTimeout(() => {
      if (this.#session !== session || session.pending.length > 0) return;
      // Forgotten first: the next input opens another session, never writes to this one.
      this.#session = undefined;
      session.handle.call.end();
      const ended = session.ended;
      this.#releasing.add(ended);
      void ended.finally(() => this.#releasing.delete(ended));
    }, this.#idleMs);
    // The session's own socket and request keep the process up, not this timer.
    this.#idle.unref();
  }

  async #open(token: string | undefined): Promise<OpenSession> {
    // S2's session: the first refused input ends it, and nothing after it lands.
    const handle = await this.#upstream.openAppendSession(
      {
        ...this.#address,
        ...(token === undefined ? {} : { fencing_token: token }),
        end_on_refusal: true,
      },
      this.#route,
    );
    const { call } = handle;
    const session: OpenSession = {
      handle,
      token,
      pending: [],
      nextAck: 0,
      ended: new Promise((resolve) =>
        call.once("status", (final: StatusObject) => {
          void this.#onEnd(session, final).finally(() => resolve(final));
        }),
      ),
      wake: undefined,
    };
    call.on("data", (frame: AppendSessionResponse__Output) => this.#onAck(session, frame));
    // The status carries failures; this keeps the 'error' event handled.
    call.on("error", () => {});
    this.#session = session;
    return session;
  }

  #onAck(session: OpenSession, frame: AppendSessionResponse__Output): void {
    const ack = frame.ack;
    if (!ack) return;
    const due = session.nextAck++;
    const pending = session.pending.shift();
    if (!pending) return;
    if (ack.batch_index !== String(due) || !ack.appended) {
      // Not the answer to the oldest batch (a miss ends an end_on_refusal session): stop.
      const err = new Error(`the star answered batch ${ack.batch_index}, not ${due}`);
      this.#failure ??= { reason: Promise.resolve(err) };
      session.handle.call.cancel();
      pending.reject(err);
      return;
    }
    pending.resolve(appendAckToS2(ack.appended));
    session.wake?.();
    if (session.pending.length === 0) this.#releaseWhenIdle(session);
  }

  async #onEnd(session: OpenSession, final: StatusObject): Promise<void> {
    if (this.#session === session) {
      this.#session = undefined;
      clearTimeout(this.#idle);
    }
    const unanswered = session.pending.splice(0);
    if (unanswered.length === 0) {
      session.wake?.();
      return;
    }
    // A refusal (a match or fencing miss) is known to have appended nothing, nor anything after.
    const err =
      final.code === status.OK
        ? new StarCallError(
            { ...final, code: status.UNAVAILABLE, details: "the session ended unanswered" },
            { method: "AppendSession", outcomeUnknown: true },
          )
        : new StarCallError(final, {
            method: "AppendSession",
            outcomeUnknown: final.code !== status.FAILED_PRECONDITION,
          });
    // Recorded before anything waits: an input submitted meanwhile must not open a new session.
    const failed = this.#s2Error(err);
    this.#failure ??= { reason: failed };
    session.wake?.();
    const reason = await failed;
    for (const p of unanswered) p.reject(reason);
  }

  /** After a failure, the next input's answer: that failure, unsent. */
  #failed(): { ack: Promise<never> } | undefined {
    const failure = this.#failure;
    if (!failure) return undefined;
    const ack = failure.reason.then((reason) => Promise.reject(reason));
    ack.catch(() => {});
    return { ack };
  }

  /**
   * Every later input fails with the first failure, unsent; the earlier ones in flight are still
   * answered. Returns this input's failure, rejected.
   */
  #fail(err: unknown): Promise<never> {
    this.#failure ??= { reason: Promise.resolve(err) };
    return Promise.reject(err);
  }

  #s2Error(err: unknown): Promise<unknown> {
    return withInstalledToken(this.#upstream, this.#address, this.#route, err).catch(() => err);
  }
}
