// One NDJSON append session: request lines (one AppendInput each) pipelined into one upstream
// AppendSession, one response line per batch in order, and a final `{"end": ...}` line.
//
// - The session opens on the first line (its fencing_token is the session's), so the stream's
//   own errors (404, 403...) are the response's HTTP status; after that, everything is a line.
// - Batches pipeline up to the star's window; the body is read no faster than the star takes
//   batches, the admission budget allows, and the client reads its acks.
// - A match miss is that batch's error line and the session goes on; a line that does not parse
//   or validate, or crosses a byte limit, is its error line after the earlier lines are answered,
//   and ends the session; a star failure is the error line of the first unanswered batch.
// - Draining stops reading, lets the in-flight batches finish, and ends with reason `draining`.
// - A session that sends no line for `idleMs` with nothing in flight ends with reason `idle`; a
//   client that reads no ack for `slowConsumerMs` has its batches in flight answered into the
//   void and its response cut.
// - With producer headers, line n's batch carries the first seq + n, and at most the acks a
//   stream remembers per producer are unanswered at once.

import type { Readable } from "node:stream";
import { Metadata, type StatusObject, status } from "@grpc/grpc-js";
import { PRODUCER_ACKS_REMEMBERED } from "../../../contract/wire-limits.ts";
import type { AppendSessionResponse__Output } from "../../../gen/nova/v1/AppendSessionResponse.ts";
import {
  errorBody,
  HttpError,
  invalidArgument,
  seqNumMismatch,
  toHttpError,
} from "../../errors/index.ts";
import type { BodyTicket } from "../../http/index.ts";
import type {
  AppendBatchProto,
  AppendLimits,
  Int64Mode,
  RecordFormat,
  ShapeCheck,
} from "../../translate/index.ts";
import {
  ackLine,
  appendLineFromJson,
  type EndReason,
  endLine,
  errorLine,
  type NdjsonLimits,
  type NdjsonLine,
  type NdjsonRefusal,
  NdjsonSplitter,
  type ProducerProto,
  producerForLine,
} from "../../translate/index.ts";
import type { AppendSession, Upstream } from "../../upstream/index.ts";
import { StarCallError } from "../../upstream/index.ts";
import { bodyChunks } from "./body-chunks.ts";

export interface NdjsonSessionOptions {
  upstream: Upstream;
  bucket: string;
  key: string;
  authorization?: string;
  body: Readable;
  format: RecordFormat;
  int64: Int64Mode;
  appendLimits: AppendLimits;
  /** Each line's schema check, the one a unary append body passes. */
  checkLine: ShapeCheck;
  lineLimits: NdjsonLimits;
  /** The session's admission: each line's bytes taken while it is in flight. */
  admission: Pick<BodyTicket, "take" | "give">;
  /** Aborts when the client goes away: the upstream session is cancelled. */
  signal: AbortSignal;
  producer?: ProducerProto | undefined;
  /** How long the client may send no line while nothing is in flight. */
  idleMs: number;
  /** How long the client may leave its acks unread. */
  slowConsumerMs: number;
  /** Told when the session is cut for acks left unread for `slowConsumerMs`. */
  onSlowConsumer?: () => void;
}

/** The response as the session uses it (a ServerResponse in the gateway). */
export interface NdjsonOutput {
  write(chunk: string): boolean;
  end(): void;
  once(event: "drain" | "close", listener: () => void): unknown;
  off(event: "drain" | "close", listener: () => void): unknown;
  readonly writableNeedDrain: boolean;
  readonly destroyed: boolean;
  destroy(): void;
}

interface Parsed {
  lineNo: number;
  bytes: number;
  batch: AppendBatchProto;
}

interface LineError {
  lineNo: number;
  error: HttpError;
}

export class NdjsonAppendSession {
  readonly #opts: NdjsonSessionOptions;
  readonly #chunks: AsyncGenerator<Buffer>;
  readonly #splitter: NdjsonSplitter;
  #lines: NdjsonLine[] = [];
  #refused: NdjsonRefusal | undefined;
  #bodyEnded = false;
  #pendingChunk: Promise<IteratorResult<Buffer>> | undefined;
  #first: Parsed | undefined;
  #fencingToken: string | undefined;
  /** The line error that ends the session once the lines before it are answered. */
  #terminal: LineError | undefined;
  #session: AppendSession | undefined;
  #final: StatusObject | undefined;
  #inflight: { lineNo: number; bytes: number }[] = [];
  /** Bytes of the line still arriving (the splitter's partial line) taken from admission. */
  #partialHeld = 0;
  /** The splitter's line count when #partialHeld was taken: a later count, a new line. */
  #partialLine = 0;
  /** What was taken of line #carriedLine while it arrived: kept until it goes in flight. */
  #carried = 0;
  #carriedLine = 0;
  #answered = 0;
  /** Batches written to the star: the next line's offset from the first producer seq. */
  #submitted = 0;
  /** The batch_index the next ack must carry: the star answers batches in order. */
  #nextAck = 0;
  /** An ack for another batch than the oldest unanswered one ended the session. */
  #misacked: HttpError | undefined;
  #draining = false;
  /** Why the session stopped reading on its own: no line for idleMs, or acks left unread. */
  #timedOut: "idle" | "slow" | undefined;
  /** When the response last stopped taking writes; undefined while it takes them. */
  #stalledSince: number | undefined;
  #out: NdjsonOutput | undefined;
  /** Wakes the reader: an ack freed a slot, the client drained, the call ended, or a drain. */
  #wake: (() => void) | undefined;

  constructor(opts: NdjsonSessionOptions) {
    this.#opts = opts;
    this.#chunks = bodyChunks(opts.body);
    this.#splitter = new NdjsonSplitter(opts.lineLimits);
  }

  /**
   * Reads the first line and opens the upstream session with its fencing token. Throws the
   * HTTP error when the session cannot open; nothing is written before this resolves.
   */
  async open(): Promise<void> {
    const line = await this.#nextLine();
    if (!line) return;
    const parsed = this.#parse(line);
    if (!parsed) return;
    this.#first = parsed;
    this.#fencingToken = parsed.batch.fencing_token;
    const { upstream, bucket, key, authorization, signal } = this.#opts;
    const open = {
      bucket,
      key,
      ...(this.#fencingToken === undefined ? {} : { fencing_token: this.#fencingToken }),
    };
    this.#session = await upstream.openAppendSession(open, { bucket, key, authorization, signal });
  }

  /** Runs the session to its end line; resolves once the response is ended. */
  async run(out: NdjsonOutput): Promise<void> {
    this.#out = out;
    const onClose = () => this.#poke();
    out.once("close", onClose);
    try {
      const session = this.#session;
      if (!session) {
        this.#finish({ code: status.OK, details: "", metadata: new Metadata() });
        return;
      }
      const ended = this.#watch(session);
      try {
        // A producer's retry after a lost connection is answered only for batches the stream
        // still remembers the acks of: no more than those are unanswered at once.
        const window = this.#opts.producer
          ? Math.min(session.opened.window, PRODUCER_ACKS_REMEMBERED)
          : session.opened.window;
        await this.#pump(Math.max(1, window));
      } catch {
        // The body was cut off: the client is gone, and so is whoever would read an answer.
        session.call.cancel();
        return;
      }
      // Half-close: the star answers what it has and ends the call.
      session.call.end();
      const final = await ended;
      // A client that reads nothing would hold the connection for an end line it never takes.
      if (this.#timedOut === "slow") out.destroy();
      else this.#finish(final);
    } finally {
      out.off("close", onClose);
      for (const slot of this.#inflight.splice(0)) this.#opts.admission.give(slot.bytes);
      this.#givePartial();
      this.#dropCarried();
    }
  }

  /** Stops reading lines; the batches in flight are answered, then the end line says why. */
  drain(): void {
    this.#draining = true;
    this.#poke();
  }

  #watch(session: AppendSession): Promise<StatusObject> {
    const { call } = session;
    call.on("data", (frame: AppendSessionResponse__Output) => this.#onAck(frame));
    // The status carries failures; this keeps the 'error' event handled.
    call.on("error", () => {});
    return new Promise((resolve) =>
      call.once("status", (s: StatusObject) => {
        this.#final = s;
        this.#poke();
        resolve(s);
      }),
    );
  }

  /** Submits lines until the body ends, a line ends the session, the call ends, or a drain. */
  async #pump(window: number): Promise<void> {
    const call = (this.#session as AppendSession).call;
    for (;;) {
      if (this.#stopped()) return;
      let parsed: Parsed | undefined = this.#first;
      this.#first = undefined;
      if (!parsed) {
        const line = await this.#nextLine();
        if (!line || this.#stopped()) return;
        parsed = this.#parse(line);
        if (!parsed) return;
      }
      if (parsed.batch.fencing_token !== this.#fencingToken) {
        this.#terminal = {
          lineNo: parsed.lineNo,
          error: invalidArgument(
            "fencing_token",
            "must be the same on every line of a session (the first line's opens it)",
          ),
        };
        return;
      }
      let producer: ProducerProto | undefined;
      try {
        producer = this.#opts.producer && producerForLine(this.#opts.producer, this.#submitted);
      } catch (err) {
        this.#terminal = { lineNo: parsed.lineNo, error: toHttpError(err) };
        return;
      }
      if (!(await this.#admit(parsed, window))) return;
      const { records, match_seq_num } = parsed.batch;
      this.#submitted++;
      call.write({
        batch: {
          records,
          ...(match_seq_num === undefined ? {} : { match_seq_num }),
          ...(producer === undefined ? {} : { producer }),
        },
      });
    }
  }

  /**
   * Waits for a slot in the star's window, the client to read its acks, and admission for the
   * line's bytes; false when the session stops meanwhile (or admission refuses a lone batch).
   */
  async #admit(parsed: Parsed, window: number): Promise<boolean> {
    const out = this.#out as NdjsonOutput;
    for (;;) {
      if (this.#stopped()) return false;
      // The slow-consumer time runs from when the socket stopped taking acks, not from this
      // wait: an ack that comes meanwhile (one more line for the client to read) wakes it.
      if (!out.writableNeedDrain) this.#stalledSince = undefined;
      if (this.#inflight.length < window && !out.writableNeedDrain) {
        try {
          // Taken while it arrived, in part: the rest now, or what was taken over it back.
          const carried = parsed.lineNo === this.#carriedLine ? this.#carried : 0;
          this.#opts.admission.take(Math.max(0, parsed.bytes - carried));
          if (carried > 0) {
            this.#opts.admission.give(Math.max(0, carried - parsed.bytes));
            this.#carried = 0;
          }
          this.#inflight.push({ lineNo: parsed.lineNo, bytes: parsed.bytes });
          return true;
        } catch (err) {
          // With nothing of ours in flight no ack will free budget: the client must retry.
          if (this.#inflight.length === 0) {
            this.#terminal = { lineNo: parsed.lineNo, error: toHttpError(err) };
            return false;
          }
        }
      }
      if (out.writableNeedDrain) this.#stalledSince ??= performance.now();
      const stalledFor =
        this.#stalledSince === undefined ? 0 : performance.now() - this.#stalledSince;
      await new Promise<void>((resolve) => {
        const slow = out.writableNeedDrain
          ? setTimeout(
              () => {
                this.#timedOut = "slow";
                this.#opts.onSlowConsumer?.();
                done();
              },
              Math.max(0, this.#opts.slowConsumerMs - stalledFor),
            )
          : undefined;
        const done = () => {
          clearTimeout(slow);
          out.off("drain", done);
          this.#wake = undefined;
          resolve();
        };
        this.#wake = done;
        if (out.writableNeedDrain) out.once("drain", done);
      });
    }
  }

  #onAck(frame: AppendSessionResponse__Output): void {
    const ack = frame.ack;
    if (!ack || this.#misacked) return;
    const due = this.#nextAck++;
    if (ack.batch_index !== String(due)) {
      // Pairing it with the oldest line would report another line's outcome: stop instead.
      this.#misacked = misackError(ack.batch_index, due);
      this.#session?.call.cancel();
      return;
    }
    const slot = this.#inflight.shift();
    if (!slot) return;
    this.#opts.admission.give(slot.bytes);
    this.#answered++;
    if (ack.appended) {
      this.#write(ackLine(ack.appended, this.#opts.int64));
    } else {
      const expected = ack.seq_num_mismatch?.expected_seq_num ?? "0";
      this.#write(errorLine(seqNumMismatch(expected), slot.lineNo, this.#opts.int64));
    }
    this.#poke();
  }

  /** After the call ended: the failure or the line error, if any, then the end line. */
  #finish(final: StatusObject): void {
    if (this.#misacked) {
      const first = this.#inflight[0];
      if (first) {
        this.#answered++;
        this.#write(errorLine(this.#misacked, first.lineNo, this.#opts.int64));
        this.#end("error");
      } else {
        this.#end("error", this.#misacked);
      }
      return;
    }
    if (final.code === status.CANCELLED && this.#opts.signal.aborted) return;
    if (final.code !== status.OK) {
      // The first unanswered batch gets the failure; after it was sent, it may have landed.
      const first = this.#inflight[0];
      const err = toHttpError(
        new StarCallError(final, { method: "AppendSession", outcomeUnknown: first !== undefined }),
        { resource: "stream" },
      );
      if (first) {
        this.#answered++;
        this.#write(errorLine(err, first.lineNo, this.#opts.int64));
        this.#end("error");
      } else {
        this.#end("error", err);
      }
      return;
    }
    const terminal = this.#terminal;
    if (terminal) {
      this.#answered++;
      this.#write(errorLine(terminal.error, terminal.lineNo, this.#opts.int64));
      this.#end("error");
      return;
    }
    this.#end(this.#draining ? "draining" : this.#timedOut === "idle" ? "idle" : "done");
  }

  /** Writes the end line (with the failure no batch line could carry) and ends the response. */
  #end(reason: EndReason, error?: HttpError): void {
    this.#write(endLine(reason, this.#answered, error && errorBody(error, this.#opts.int64)));
    this.#out?.end();
  }

  /** The next non-blank line; undefined at the end of the body, a refusal, or a stop. */
  async #nextLine(): Promise<NdjsonLine | undefined> {
    for (;;) {
      const line = this.#lines.shift();
      if (line) return line;
      if (this.#refused) {
        this.#terminal ??= this.#refused;
        return undefined;
      }
      if (this.#bodyEnded || this.#stopped()) return undefined;
      // Every complete line is in flight or answered: the line still arriving is admitted
      // before more of it is read.
      if (!this.#pendingChunk && !(await this.#admitPartial())) return undefined;
      if (!this.#pendingChunk) {
        this.#pendingChunk = this.#chunks.next();
        // Raced with a stop; a body cut off after the session stopped reading is no failure.
        this.#pendingChunk.catch(() => {});
      }
      // Nothing in flight: no ack will come, only the client's next line, if any.
      const idle =
        this.#inflight.length === 0
          ? setTimeout(() => {
              this.#timedOut = "idle";
              this.#poke();
            }, this.#opts.idleMs)
          : undefined;
      const got = await Promise.race([
        this.#pendingChunk,
        new Promise<"woken">((resolve) => {
          this.#wake = () => resolve("woken");
        }),
      ]).finally(() => {
        // Also when the body was cut off: no timer outlives the wait.
        clearTimeout(idle);
        this.#wake = undefined;
      });
      if (got === "woken") continue;
      this.#pendingChunk = undefined;
      const result = got.done ? this.#splitter.end() : this.#splitter.push(got.value);
      if (got.done) this.#bodyEnded = true;
      this.#lines.push(...result.lines);
      this.#refused = result.refused;
      // A complete line keeps what was taken of it until it is sent; a refused one gives it back.
      if (this.#refused) this.#givePartial();
      else if (this.#splitter.lineNo !== this.#partialLine && this.#partialHeld > 0) {
        this.#dropCarried();
        this.#carried = this.#partialHeld;
        this.#carriedLine = this.#partialLine + 1;
        this.#partialHeld = 0;
      }
    }
  }

  /**
   * Admits what the splitter holds of the line still arriving, as a unary body's bytes are
   * admitted as they arrive: at most one chunk of a session is held unadmitted (the lines
   * completed by it, taken as each is sent). Past a bound it
   * waits for an ack to give budget back; with nothing in flight to give, the line is refused
   * (429: thrown while the session is not open yet). False when the session stops meanwhile or
   * the line is refused.
   */
  async #admitPartial(): Promise<boolean> {
    for (;;) {
      const more = this.#splitter.partialBytes - this.#partialHeld;
      if (more <= 0) return true;
      if (this.#stopped()) return false;
      try {
        this.#opts.admission.take(more);
        this.#partialHeld += more;
        this.#partialLine = this.#splitter.lineNo;
        return true;
      } catch (err) {
        // Before the session opens, nothing is written: the refusal is the response's status.
        if (!this.#session) throw err;
        if (this.#inflight.length === 0) {
          this.#terminal = { lineNo: this.#splitter.lineNo + 1, error: toHttpError(err) };
          return false;
        }
      }
      await new Promise<void>((resolve) => {
        this.#wake = resolve;
      });
    }
  }

  #givePartial(): void {
    this.#opts.admission.give(this.#partialHeld);
    this.#partialHeld = 0;
  }

  /** Gives back what a line never sent (blank, or past the session's end) still holds. */
  #dropCarried(): void {
    this.#opts.admission.give(this.#carried);
    this.#carried = 0;
  }

  #parse(line: NdjsonLine): Parsed | undefined {
    try {
      const { format, appendLimits, checkLine } = this.#opts;
      const batch = appendLineFromJson(line.bytes, format, appendLimits, checkLine);
      return { lineNo: line.lineNo, bytes: line.bytes.length, batch };
    } catch (err) {
      this.#terminal = { lineNo: line.lineNo, error: toHttpError(err) };
      return undefined;
    }
  }

  #stopped(): boolean {
    return (
      this.#draining ||
      this.#timedOut !== undefined ||
      this.#final !== undefined ||
      this.#terminal !== undefined ||
      this.#opts.signal.aborted ||
      this.#out?.destroyed === true
    );
  }

  #write(line: string): void {
    const out = this.#out;
    if (out && !out.destroyed) out.write(line);
  }

  #poke(): void {
    const wake = this.#wake;
    this.#wake = undefined;
    wake?.();
  }
}

/** A star that acked batch `got` when batch `due` was the oldest unanswered one. */
function misackError(got: string, due: number): HttpError {
  return new HttpError(
    500,
    "internal",
    `the star acknowledged batch ${got} of this session where batch ${due} was due, so which ` +
      "lines landed is unknown: the session ended; read the stream's tail before sending the " +
      "lines in flight again",
    { fields: { outcome: "unknown" } },
  );
}
