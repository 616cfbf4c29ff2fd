// AppendSession by the rules of dataplane.proto: the open frame first; batches pipelined up to the window,
// beyond which the star stops reading frames (HTTP/2 flow control is the backpressure); acks
// strictly in batch order; a match miss occupies its slot as rejected and the session goes on
// (with end_on_refusal it ends the session, and no later batch lands); any other failure ends
// the session; half-close flushes the queued acks and ends cleanly. A session with no frame for
// `--append-session-idle-ms` and no batch in flight ends with UNAVAILABLE: nothing of it is lost, and a
// client that went quiet (or never sent its open frame) holds no slot of --max-sessions for good.
import { type ServerDuplexStream, status } from "@grpc/grpc-js";
import { findDetail } from "../../contract/proto/index.ts";
import type { AppendSessionBatch__Output } from "../../gen/nova/v1/AppendSessionBatch.ts";
import type { AppendSessionRequest__Output } from "../../gen/nova/v1/AppendSessionRequest.ts";
import type { AppendSessionResponse } from "../../gen/nova/v1/AppendSessionResponse.ts";
import { producerClaim } from "../append/producer-claim.ts";
import { validateBatch } from "../append/validate-batch.ts";
import { checkSessionBatch, checkSessionOpen } from "../auth/guard.ts";
import type { StarContext } from "../context.ts";
import {
  invalidArgument,
  resourceExhausted,
  type StarError,
  toServiceError,
  unavailable,
} from "../errors.ts";
import { resolveLedDescriptor, withLedLog } from "../lifecycle/streams.ts";
import type { AppendAck, SessionHandle, StreamLog } from "../stream/stream-log.ts";
import { refuseOverCap } from "./append-guard.ts";
import { checkFencingToken } from "./data-verbs.ts";
import { appendResponse, position } from "./wire.ts";

type Call = ServerDuplexStream<AppendSessionRequest__Output, AppendSessionResponse>;
type Outcome = { ok: AppendAck } | { err: unknown };

export function appendSessionHandler(ctx: StarContext): (call: Call) => void {
  const sessions = ctx.appendSessions;
  return (call) => {
    if (sessions.active >= ctx.limits.maxSessions) {
      call.emit(
        "error",
        resourceExhausted(`the star's session cap of ${ctx.limits.maxSessions} is reached`),
      );
      return;
    }
    sessions.active++;
    new Session(ctx, call, () => sessions.active--).start();
  };
}

class Session implements SessionHandle {
  fencingToken: string | undefined;
  readonly #ctx: StarContext;
  readonly #call: Call;
  readonly #release: () => void;
  #log: StreamLog | undefined;
  #opening = false;
  #batchIndex = 0n;
  #inflight = 0;
  #acks: Promise<void> = Promise.resolve();
  #halfClosed = false;
  #done = false;
  /** Set once a batch failed terminally: later frames are not submitted. */
  #poisoned = false;
  /** `end_on_refusal`: the session's batches as one chain, and a match miss ends it. */
  #chain: { broken: boolean } | undefined;
  #idle: NodeJS.Timeout | undefined;

  constructor(ctx: StarContext, call: Call, release: () => void) {
    this.#ctx = ctx;
    this.#call = call;
    this.#release = release;
  }

  start(): void {
    this.#armIdle();
    this.#call.on("data", (frame: AppendSessionRequest__Output) => this.#onFrame(frame));
    this.#call.on("end", () => {
      this.#halfClosed = true;
      void this.#acks.then(() => this.#finish());
    });
    this.#call.on("cancelled", () => this.#cleanup());
    this.#call.on("error", () => this.#cleanup());
  }

  #onFrame(frame: AppendSessionRequest__Output): void {
    if (this.#done || this.#poisoned) return;
    this.#armIdle();
    try {
      refuseOverCap(frame);
    } catch (err) {
      // As a batch validateBatch refuses: the session ends on it.
      if (!this.#log) this.#fail(err);
      else {
        this.#poisoned = true;
        this.#enqueueOutcome(Promise.resolve({ err }));
      }
      return;
    }
    if (!this.#log) {
      if (this.#opening || frame.frame !== "open" || !frame.open) {
        this.#fail(invalidArgument("the first frame of an AppendSession must be open"));
        return;
      }
      if (frame.open.end_on_refusal) this.#chain = { broken: false };
      this.#open(frame.open.bucket, frame.open.key, frame.open.fencing_token);
      return;
    }
    if (frame.frame !== "batch" || !frame.batch) {
      this.#poisoned = true;
      this.#enqueueOutcome(
        Promise.resolve({ err: invalidArgument("only the first frame may be open") }),
      );
      return;
    }
    this.#submit(this.#log, frame.batch);
  }

  #open(bucket: string, key: string, token: string | undefined): void {
    this.#opening = true;
    this.#call.pause();
    // Acks and a half-close wait for the handshake too.
    this.#acks = Promise.resolve()
      .then(() => checkSessionOpen(this.#ctx.auth, this.#call.metadata, { bucket, key }))
      .then(() => resolveLedDescriptor(this.#ctx, bucket, key, "append"))
      // Held until the session is among the log's sessions, which keep it open from then on.
      .then((stream) =>
        withLedLog(this.#ctx, stream, async (log) => {
          checkFencingToken(this.#ctx, token);
          if (this.#done) return;
          this.#log = log;
          this.fencingToken = token;
          log.sessions.add(this);
          this.#call.write({
            opened: {
              window: this.#ctx.limits.sessionWindow,
              tail: position(log.tail),
              star_id: this.#ctx.id,
            },
          });
          this.#call.resume();
          this.#armIdle();
        }),
      )
      .catch((err: unknown) => this.#fail(err));
  }

  #submit(log: StreamLog, frame: AppendSessionBatch__Output): void {
    let pending: Promise<Outcome>;
    // Each batch is a use of the stream, as a unary Append is: an idle-expiring stream a session
    // writes to is not idle.
    this.#ctx.uses.touch(log.descriptor, this.#ctx.now());
    try {
      checkSessionBatch(this.#ctx.auth, this.#call.metadata, log.descriptor, frame.records);
      const producer = producerClaim(frame.producer);
      const match = frame.match_seq_num;
      const batch = validateBatch(
        frame.records,
        log.descriptor.timestamping_mode,
        this.#ctx.limits,
      );
      pending = log
        .append(batch, {
          arrivalMs: BigInt(this.#ctx.now()),
          matchSeqNum: match === undefined ? undefined : BigInt(match),
          fencingToken: this.fencingToken,
          producer,
          ...(this.#chain ? { chain: this.#chain } : {}),
        })
        .then(
          (ok) => ({ ok }),
          (err: unknown) => {
            // The session ends on this batch: later frames are not submitted (a throughput
            // refusal is known at once, before the batches ahead of it are acked).
            if (this.#chain || !seqNumMismatchOf(err)) this.#poisoned = true;
            return { err };
          },
        );
    } catch (err) {
      this.#poisoned = true;
      pending = Promise.resolve({ err });
    }
    this.#enqueueOutcome(pending);
  }

  /** Chains an outcome behind the earlier ones, so acks leave in batch order. */
  #enqueueOutcome(pending: Promise<Outcome>): void {
    const index = this.#batchIndex++;
    this.#inflight++;
    if (this.#inflight >= this.#ctx.limits.sessionWindow) this.#call.pause();
    this.#acks = this.#acks.then(async () => {
      const outcome = await pending;
      this.#inflight--;
      if (this.#done) return;
      if (this.#inflight === 0) this.#armIdle();
      if ("ok" in outcome) {
        this.#call.write({
          ack: { batch_index: index.toString(), appended: appendResponse(outcome.ok) },
        });
      } else {
        const mismatch = seqNumMismatchOf(outcome.err);
        if (!mismatch || this.#chain) {
          this.#fail(outcome.err);
          return;
        }
        this.#call.write({ ack: { batch_index: index.toString(), seq_num_mismatch: mismatch } });
      }
      if (this.#inflight < this.#ctx.limits.sessionWindow && !this.#halfClosed) this.#call.resume();
    });
  }

  /** (Re)starts the idle time; it ends the session only if no batch is in flight by then. */
  #armIdle(): void {
    const ms = this.#ctx.limits.sessionIdleMs;
    if (ms === 0) return;
    if (this.#idle) {
      this.#idle.refresh();
      return;
    }
    this.#idle = setTimeout(() => {
      // Not while the open handshake runs: frames may wait behind it (the call is paused).
      if (this.#inflight > 0 || this.#halfClosed || (this.#opening && !this.#log)) return;
      this.#fail(
        unavailable(
          `the session sent nothing for ${ms} ms (--append-session-idle-ms) and was ended; nothing of it was lost: open another`,
        ),
      );
    }, ms);
  }

  supersede(err: StarError): void {
    this.#fail(err);
  }

  #fail(err: unknown): void {
    if (this.#done) return;
    this.#cleanup();
    this.#call.emit("error", toServiceError(err, this.#ctx.log));
  }

  #finish(): void {
    if (this.#done) return;
    this.#cleanup();
    this.#call.end();
  }

  #cleanup(): void {
    if (this.#done) return;
    this.#done = true;
    clearTimeout(this.#idle);
    this.#log?.sessions.delete(this);
    // Its appends were uses: the log's idle time counts from the session's end.
    this.#log?.markUsed();
    this.#release();
  }
}

function seqNumMismatchOf(err: unknown): { expected_seq_num: string } | undefined {
  const e = err as { code?: number; metadata?: Parameters<typeof findDetail>[0] };
  if (e?.code !== status.FAILED_PRECONDITION) return undefined;
  return findDetail(e.metadata, "SeqNumMismatch");
}
