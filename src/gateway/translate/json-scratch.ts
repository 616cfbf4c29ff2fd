// The one buffer that records' JSON is written into before it is copied, with its frame (the
// page's `{"records":[` … or the SSE event's lines), into the response: no piece per record and
// no list of pieces to join, so a batch's JSON costs one pass over its bytes and one copy.
// Writing is synchronous, so one buffer serves the whole process. What a writer finished is
// valid until the next writer starts; reading it later throws instead of serving other bytes.

/** The scratch is dropped back to this size once a batch grew it beyond KEEP_BYTES. */
const INITIAL_BYTES = 1 << 20;
const KEEP_BYTES = 8 << 20;

let scratch = Buffer.allocUnsafe(INITIAL_BYTES);
let generation = 0;

/** JSON a ScratchWriter finished: `byteLength` bytes at the start of the scratch. */
export interface ScratchJson {
  readonly byteLength: number;
  readonly generation: number;
}

export class ScratchWriter {
  #at = 0;
  readonly #generation: number;

  constructor() {
    generation++;
    this.#generation = generation;
    if (scratch.length > KEEP_BYTES) scratch = Buffer.allocUnsafe(INITIAL_BYTES);
  }

  /** Text known to be ASCII (JSON syntax, digits, base64): one byte per character. */
  ascii(s: string): void {
    this.#room(s.length);
    this.#at += scratch.write(s, this.#at, "latin1");
  }

  /** Any text, as UTF-8. */
  text(s: string): void {
    this.#room(s.length * 3);
    this.#at += scratch.write(s, this.#at, "utf8");
  }

  bytes(b: Uint8Array): void {
    this.#room(b.length);
    scratch.set(b, this.#at);
    this.#at += b.length;
  }

  /** One byte (a quote, a brace): cheaper than a string for the syntax around raw bytes. */
  byte(c: number): void {
    this.#room(1);
    scratch[this.#at++] = c;
  }

  finish(): ScratchJson {
    return { byteLength: this.#at, generation: this.#generation };
  }

  #room(n: number): void {
    if (this.#generation !== generation) throw new Error("a later ScratchWriter took the scratch");
    if (this.#at + n <= scratch.length) return;
    let size = scratch.length * 2;
    while (size < this.#at + n) size *= 2;
    const grown = Buffer.allocUnsafe(size);
    scratch.copy(grown, 0, 0, this.#at);
    scratch = grown;
  }
}

/** The bytes of `json`, until the next ScratchWriter starts; after that, throws. */
export function scratchBytes(json: ScratchJson): Uint8Array {
  if (json.generation !== generation) {
    throw new Error("JSON read from the scratch after a later writer reused it");
  }
  return scratch.subarray(0, json.byteLength);
}
