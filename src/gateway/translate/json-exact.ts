// JSON with exact integers: JSON.parse rounds every number through a double, so seq_nums and
// timestamps above 2^53-1 would silently change. This is a strict RFC 8259 parser that keeps such
// integers as their decimal digits, and a stringifier that writes bigint values as digits. JSON.parse
// with a reviver reading the source text, and JSON.rawJSON, do the same natively but slower
// (docs/runtime.md).

export class JsonSyntaxError extends SyntaxError {
  /** The UTF-16 offset in the text where parsing stopped. */
  readonly position: number;

  constructor(reason: string, position: number) {
    super(`${reason} at position ${position}`);
    this.name = "JsonSyntaxError";
    this.position = position;
  }
}

/** A text holding more values than the parse was allowed: refused before they are all made. */
export class JsonTooLargeError extends RangeError {
  readonly maxValues: number;

  constructor(maxValues: number) {
    super(`more than ${maxValues} JSON values`);
    this.name = "JsonTooLargeError";
    this.maxValues = maxValues;
  }
}

/** How often a parse reports the values it has made so far (`onValues`). */
export const JSON_VALUES_STEP = 1 << 16;

/** Deeper input is refused rather than risking a stack overflow; real payloads nest 4 deep. */
export const MAX_JSON_DEPTH = 512;

// A run of string characters that need no attention; sticky so it scans in place, letting long
// strings (100 MiB of base64) be sliced whole instead of built a character at a time.
// biome-ignore lint/suspicious/noControlCharactersInRegex: JSON strings may not hold raw U+0000-U+001F.
const PLAIN_RUN = /[^"\\\u0000-\u001f]*/y;
const DIGIT_RUN = /[0-9]*/y;
const MIN_SAFE = BigInt(Number.MIN_SAFE_INTEGER);
const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

const ESCAPES: Record<string, string> = {
  '"': '"',
  "\\": "\\",
  "/": "/",
  b: "\b",
  f: "\f",
  n: "\n",
  r: "\r",
  t: "\t",
};

/**
 * Parses JSON text strictly (no comments, trailing commas, NaN, single quotes, unpaired surrogate
 * escapes or duplicate object keys). An integer outside ±(2^53-1) becomes its exact decimal
 * string, written with a fraction or exponent (1e20) too; every other number is a JS number, as
 * JSON.parse would give, except one a double would round to a whole number (1.0000000000000001,
 * 1e-400), which is refused: every number this API reads is an integer, and it must not pass as
 * one it is not.
 */
export function parseJsonExact(
  text: string,
  maxValues = Number.POSITIVE_INFINITY,
  onValues?: (values: number) => void,
): unknown {
  const parser = new Parser(text, maxValues, onValues);
  parser.skipWhitespace();
  const value = parser.value(0);
  parser.skipWhitespace();
  if (parser.pos < text.length) parser.fail("unexpected data after the JSON value");
  return value;
}

class Parser {
  pos = 0;

  private readonly text: string;
  private readonly maxValues: number;
  private readonly onValues: ((values: number) => void) | undefined;
  private values = 0;

  constructor(text: string, maxValues: number, onValues?: (values: number) => void) {
    this.text = text;
    this.maxValues = maxValues;
    this.onValues = onValues;
  }

  fail(reason: string, at = this.pos): never {
    throw new JsonSyntaxError(reason, at);
  }

  skipWhitespace(): void {
    const t = this.text;
    let i = this.pos;
    for (;;) {
      const c = t.charCodeAt(i);
      if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) break;
      i++;
    }
    this.pos = i;
  }

  value(depth: number): unknown {
    if (++this.values > this.maxValues) throw new JsonTooLargeError(this.maxValues);
    if (this.values % JSON_VALUES_STEP === 0) this.onValues?.(this.values);
    const c = this.text.charCodeAt(this.pos);
    switch (c) {
      case 0x7b: // {
        return this.object(depth + 1);
      case 0x5b: // [
        return this.array(depth + 1);
      case 0x22: // "
        return this.string();
      case 0x74: // t
        return this.literal("true", true);
      case 0x66: // f
        return this.literal("false", false);
      case 0x6e: // n
        return this.literal("null", null);
      default:
        if (c === 0x2d || (c >= 0x30 && c <= 0x39)) return this.number();
        return this.unexpected();
    }
  }

  unexpected(): never {
    if (this.pos >= this.text.length) this.fail("unexpected end of input");
    this.fail(`unexpected character ${JSON.stringify(this.text[this.pos])}`);
  }

  literal<T>(word: string, value: T): T {
    if (!this.text.startsWith(word, this.pos)) this.unexpected();
    this.pos += word.length;
    return value;
  }

  object(depth: number): Record<string, unknown> {
    if (depth > MAX_JSON_DEPTH) this.fail(`nesting deeper than ${MAX_JSON_DEPTH}`);
    const out: Record<string, unknown> = {};
    this.pos++;
    this.skipWhitespace();
    if (this.text.charCodeAt(this.pos) === 0x7d) {
      this.pos++;
      return out;
    }
    for (;;) {
      if (this.text.charCodeAt(this.pos) !== 0x22) this.unexpected();
      const keyAt = this.pos;
      const key = this.string();
      // Two values for one name have no agreed meaning (RFC 8259 §4); refuse rather than guess.
      if (Object.hasOwn(out, key)) this.fail(`duplicate key ${JSON.stringify(key)}`, keyAt);
      this.skipWhitespace();
      if (this.text.charCodeAt(this.pos) !== 0x3a) this.unexpected();
      this.pos++;
      this.skipWhitespace();
      const value = this.value(depth);
      // An own "__proto__" property, as JSON.parse makes it, never the prototype.
      if (key === "__proto__") {
        Object.defineProperty(out, key, {
          value,
          enumerable: true,
          writable: true,
          configurable: true,
        });
      } else {
        out[key] = value;
      }
      this.skipWhitespace();
      const c = this.text.charCodeAt(this.pos);
      this.pos++;
      if (c === 0x7d) return out;
      if (c !== 0x2c) {
        this.pos--;
        this.unexpected();
      }
      this.skipWhitespace();
    }
  }

  array(depth: number): unknown[] {
    if (depth > MAX_JSON_DEPTH) this.fail(`nesting deeper than ${MAX_JSON_DEPTH}`);
    const out: unknown[] = [];
    this.pos++;
    this.skipWhitespace();
    if (this.text.charCodeAt(this.pos) === 0x5d) {
      this.pos++;
      return out;
    }
    for (;;) {
      out.push(this.value(depth));
      this.skipWhitespace();
      const c = this.text.charCodeAt(this.pos);
      this.pos++;
      if (c === 0x5d) return out;
      if (c !== 0x2c) {
        this.pos--;
        this.unexpected();
      }
      this.skipWhitespace();
    }
  }

  string(): string {
    const t = this.text;
    let i = this.pos + 1;
    let runStart = i;
    let out = "";
    for (;;) {
      PLAIN_RUN.lastIndex = i;
      PLAIN_RUN.test(t);
      i = PLAIN_RUN.lastIndex;
      const c = t.charCodeAt(i);
      if (c === 0x22) {
        this.pos = i + 1;
        return out + t.slice(runStart, i);
      }
      if (c !== 0x5c) {
        if (i >= t.length) this.fail("unterminated string", i);
        this.fail("unescaped control character in string", i);
      }
      out += t.slice(runStart, i);
      const [decoded, length] = this.escape(i);
      out += decoded;
      i += length;
      runStart = i;
    }
  }

  /** The escape starting at the backslash at `at`: its text and its length in the source. */
  escape(at: number): [string, number] {
    const kind = this.text[at + 1];
    if (kind === undefined) this.fail("unterminated string", at);
    if (kind !== "u") {
      const simple = ESCAPES[kind];
      if (simple === undefined) this.fail(`invalid escape \\${kind}`, at);
      return [simple, 2];
    }
    const unit = this.hex4(at + 2);
    if (unit >= 0xdc00 && unit <= 0xdfff) this.fail("unpaired surrogate escape", at);
    if (unit < 0xd800 || unit > 0xdbff) return [String.fromCharCode(unit), 6];
    // A high surrogate must be followed by an escaped low one: stored text is exact UTF-8.
    const low = this.text.startsWith("\\u", at + 6) ? this.hex4(at + 8) : -1;
    if (low < 0xdc00 || low > 0xdfff) this.fail("unpaired surrogate escape", at);
    return [String.fromCharCode(unit, low), 12];
  }

  hex4(at: number): number {
    let unit = 0;
    for (let k = 0; k < 4; k++) {
      const c = this.text.charCodeAt(at + k);
      const d =
        c >= 0x30 && c <= 0x39
          ? c - 0x30
          : c >= 0x61 && c <= 0x66
            ? c - 0x57
            : c >= 0x41 && c <= 0x46
              ? c - 0x37
              : -1;
      if (d < 0) this.fail("invalid \\u escape", at - 2);
      unit = unit * 16 + d;
    }
    return unit;
  }

  number(): number | string {
    const t = this.text;
    const start = this.pos;
    let i = start;
    if (t.charCodeAt(i) === 0x2d) i++;
    const first = t.charCodeAt(i);
    if (first === 0x30) i++;
    else if (first >= 0x31 && first <= 0x39) i = this.digits(i + 1);
    else this.fail("invalid number", i);
    let integer = true;
    if (t.charCodeAt(i) === 0x2e) {
      integer = false;
      i = this.someDigits(i + 1);
    }
    const e = t.charCodeAt(i);
    if (e === 0x65 || e === 0x45) {
      integer = false;
      const sign = t.charCodeAt(i + 1);
      i = this.someDigits(sign === 0x2b || sign === 0x2d ? i + 2 : i + 1);
    }
    this.pos = i;
    const lexeme = t.slice(start, i);
    const n = Number(lexeme);
    // Every integer above 2^53-1 in magnitude rounds to at least 2^53, which is not safe.
    if (integer) return Number.isSafeInteger(n) ? n : lexeme;
    const value = integerValue(lexeme);
    if (typeof value === "bigint") {
      const safe = value >= MIN_SAFE && value <= MAX_SAFE;
      return safe ? Number(value) : value.toString();
    }
    // 1.5 and 1e30 are doubles that say what they are; a fraction a double rounds to a whole
    // number (1.0000000000000001, 1e-400) would pass as an integer it is not.
    if (value === undefined && Number.isInteger(n)) {
      const shown = lexeme.length > 40 ? `${lexeme.slice(0, 40)}…` : lexeme;
      this.fail(`${shown} is not an integer, though a double rounds it to ${n}`, start);
    }
    return n;
  }

  digits(from: number): number {
    DIGIT_RUN.lastIndex = from;
    DIGIT_RUN.test(this.text);
    return DIGIT_RUN.lastIndex;
  }

  someDigits(from: number): number {
    const to = this.digits(from);
    if (to === from) this.fail("invalid number", from);
    return to;
  }
}

/** The most digits an integer given with a fraction or exponent is worked out to exactly. */
const EXACT_DIGITS = 25;

/**
 * A literal with a fraction or exponent: the integer it is exactly (1.0, 1e20, 15e-1 is not
 * one), "huge" for an integer of more digits than any integer field holds, else undefined.
 */
function integerValue(lexeme: string): bigint | "huge" | undefined {
  const [mantissa = "", exponent = "0"] = lexeme.toLowerCase().split("e");
  const [whole = "", fraction = ""] = mantissa.replace("-", "").split(".");
  const all = whole + fraction;
  // Counted by hand: a regex for trailing zeros backtracks over every run of them (quadratic
  // in a number's length, which a request body chooses).
  let first = 0;
  while (first < all.length && all.charCodeAt(first) === 0x30) first++;
  if (first === all.length) return 0n;
  let end = all.length;
  while (all.charCodeAt(end - 1) === 0x30) end--;
  const digits = all.slice(first);
  const zeros = all.length - end;
  const scale = Number(exponent) - fraction.length;
  if (scale + zeros < 0) return undefined;
  if (digits.length + scale > EXACT_DIGITS) return "huge";
  const magnitude =
    scale >= 0 ? BigInt(digits + "0".repeat(scale)) : BigInt(digits.slice(0, scale));
  return lexeme.startsWith("-") ? -magnitude : magnitude;
}

/** JSON.stringify, except that bigint values are written as their exact digits. */
export function stringifyJsonExact(value: unknown): string {
  const out = write(value, "");
  if (out === undefined) throw new TypeError(`${typeof value} has no JSON form`);
  return out;
}

/** `key` is what toJSON is given: a member's name or an element's index. */
function write(value: unknown, key: string | number): string | undefined {
  switch (typeof value) {
    case "string":
      return JSON.stringify(value);
    case "number":
      return Number.isFinite(value) ? String(value) : "null";
    case "boolean":
      return value ? "true" : "false";
    case "bigint":
      return value.toString();
    case "object":
      return value === null ? "null" : writeObject(value, key);
    default:
      return undefined; // undefined, functions and symbols, as JSON.stringify skips them
  }
}

// Member names repeat (every record has the same four): quoted once. Bounded, as names come
// from the caller's objects.
const quotedNames = new Map<string, string>();
const MAX_QUOTED_NAMES = 1024;

function quotedName(name: string): string {
  let quoted = quotedNames.get(name);
  if (quoted === undefined) {
    quoted = JSON.stringify(name);
    if (quotedNames.size < MAX_QUOTED_NAMES) quotedNames.set(name, quoted);
  }
  return quoted;
}

// Built by appending to one string: no array of parts per object, no join.
function writeObject(value: object, key: string | number): string | undefined {
  const toJSON = (value as { toJSON?: unknown }).toJSON;
  if (typeof toJSON === "function") return write(toJSON.call(value, String(key)), key);
  if (Array.isArray(value)) {
    let out = "[";
    for (let i = 0; i < value.length; i++) {
      if (i > 0) out += ",";
      out += write(value[i], i) ?? "null";
    }
    return `${out}]`;
  }
  let out = "{";
  for (const name of Object.keys(value)) {
    const written = write((value as Record<string, unknown>)[name], name);
    if (written === undefined) continue;
    if (out.length > 1) out += ",";
    out += `${quotedName(name)}:${written}`;
  }
  return `${out}}`;
}
