// NDJSON request bodies split into lines, with the byte limits a streaming body needs (Fastify's
// bodyLimit does not apply to a streamed body): a line is at most maxLineBytes (without its line
// break), a session at most maxSessionBytes in all. A limit is caught while the line is still
// arriving, so no more than maxLineBytes is ever buffered. Blank lines are skipped but counted,
// so line numbers are what an editor shows.
import { type HttpError, payloadTooLarge } from "../errors/index.ts";

export interface NdjsonLimits {
  maxLineBytes: number;
  maxSessionBytes: number;
}

export interface NdjsonLine {
  /** 1-based, counting blank lines. */
  lineNo: number;
  /** The line without its LF or CRLF. */
  bytes: Buffer;
}

export interface NdjsonRefusal {
  lineNo: number;
  error: HttpError;
}

export interface SplitResult {
  /** The complete lines before any refusal. */
  lines: NdjsonLine[];
  /** Set once a limit is crossed; the splitter then takes nothing more. */
  refused?: NdjsonRefusal;
}

const LF = 0x0a;
const CR = 0x0d;

export class NdjsonSplitter {
  readonly #limits: NdjsonLimits;
  #partial: Buffer[] = [];
  #partialBytes = 0;
  /** Bytes of every complete line so far, line breaks included. */
  #consumed = 0;
  #lineNo = 0;
  #refused: NdjsonRefusal | undefined;

  constructor(limits: NdjsonLimits) {
    this.#limits = limits;
  }

  /** Bytes of the line still arriving, held until its line break. */
  get partialBytes(): number {
    return this.#partialBytes;
  }

  /** Lines taken so far, blank ones included: the line still arriving is lineNo + 1. */
  get lineNo(): number {
    return this.#lineNo;
  }

  push(chunk: Buffer): SplitResult {
    const lines: NdjsonLine[] = [];
    if (this.#refused) return { lines, refused: this.#refused };
    let start = 0;
    for (;;) {
      const nl = chunk.indexOf(LF, start);
      if (nl < 0) break;
      const piece = chunk.subarray(start, nl);
      start = nl + 1;
      const refused = this.#checkGrowth(piece.length, 1);
      if (refused) return { lines, refused };
      const line = this.#takeLine(piece, 1);
      if (line === "refused") return { lines, refused: this.#refused };
      if (line) lines.push(line);
    }
    const rest = chunk.subarray(start);
    const refused = this.#checkGrowth(rest.length, 0);
    if (refused) return { lines, refused };
    if (rest.length > 0) {
      this.#partial.push(rest);
      this.#partialBytes += rest.length;
    }
    return { lines };
  }

  /** The end of the body: a last line without a line break counts. */
  end(): SplitResult {
    if (this.#refused) return { lines: [], refused: this.#refused };
    if (this.#partialBytes === 0) return { lines: [] };
    const line = this.#takeLine(Buffer.alloc(0), 0);
    if (line === "refused") return { lines: [], refused: this.#refused };
    return { lines: line ? [line] : [] };
  }

  /**
   * Refuses the line being read once it certainly crosses a limit: longer than the line limit
   * plus one byte (a CR before its LF does not count), or past the session's bytes.
   */
  #checkGrowth(more: number, lineBreak: number): NdjsonRefusal | undefined {
    const lineBytes = this.#partialBytes + more;
    if (lineBytes > this.#limits.maxLineBytes + 1) return this.#tooLong();
    if (this.#consumed + lineBytes + lineBreak > this.#limits.maxSessionBytes) {
      const lineNo = this.#lineNo + 1;
      return this.#refuse(
        payloadTooLarge(
          `line ${lineNo}`,
          `brings the session over ${this.#limits.maxSessionBytes} bytes, the most one NDJSON append session takes; send the rest in a new session`,
        ),
      );
    }
    return undefined;
  }

  #tooLong(): NdjsonRefusal {
    const lineNo = this.#lineNo + 1;
    return this.#refuse(
      payloadTooLarge(
        `line ${lineNo}`,
        `is over ${this.#limits.maxLineBytes} bytes, the largest NDJSON line this gateway takes`,
      ),
    );
  }

  #refuse(error: HttpError): NdjsonRefusal {
    this.#refused = { lineNo: this.#lineNo + 1, error };
    this.#partial = [];
    this.#partialBytes = 0;
    return this.#refused;
  }

  #takeLine(piece: Buffer, lineBreak: number): NdjsonLine | undefined | "refused" {
    let bytes = this.#partial.length === 0 ? piece : Buffer.concat([...this.#partial, piece]);
    if (bytes.length > 0 && bytes[bytes.length - 1] === CR) bytes = bytes.subarray(0, -1);
    if (bytes.length > this.#limits.maxLineBytes) {
      this.#tooLong();
      return "refused";
    }
    this.#consumed += this.#partialBytes + piece.length + lineBreak;
    this.#partial = [];
    this.#partialBytes = 0;
    this.#lineNo++;
    if (isBlank(bytes)) return undefined;
    return { lineNo: this.#lineNo, bytes };
  }
}

function isBlank(bytes: Buffer): boolean {
  for (const b of bytes) if (b !== 0x20 && b !== 0x09 && b !== CR) return false;
  return true;
}
