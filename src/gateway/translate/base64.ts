// Strict, canonical base64 (RFC 4648): one byte string has exactly one accepted spelling per
// alphabet, so a typo is an error rather than different bytes. Node's decoder silently skips
// characters it does not know, and every character skipped shortens what it decodes: so the
// decoded length, and a few native scans, tell a good text from a bad one without a JavaScript
// loop over it (which took 16% of the gateway's CPU under a flood of 8 MiB appends,
// docs/operating.md) and without a second copy. Only a refused text is scanned, to say why.
import type { FieldError } from "../errors/index.ts";

const COMMON = 1;
const STANDARD = 2; // + /
const URL_SAFE = 4; // - _

const CLASS = new Uint8Array(128);
const VALUE = new Uint8Array(128);
for (const [i, c] of [
  ..."ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789",
].entries()) {
  CLASS[c.charCodeAt(0)] = COMMON;
  VALUE[c.charCodeAt(0)] = i;
}
for (const [c, kind, value] of [
  ["+", STANDARD, 62],
  ["/", STANDARD, 63],
  ["-", URL_SAFE, 62],
  ["_", URL_SAFE, 63],
] as const) {
  CLASS[c.charCodeAt(0)] = kind;
  VALUE[c.charCodeAt(0)] = value;
}

/** Standard alphabet, with padding. */
export function encodeBase64(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("base64");
}

/**
 * Decodes the standard (`+/`) or URL-safe (`-_`) alphabet, one of them per string, padding
 * optional but correct when present. Refused: whitespace and any other character, a length no
 * encoder makes, and non-zero unused bits in the last character (a non-canonical spelling).
 */
export function decodeBase64(text: string, field: string, err: FieldError): Buffer {
  const bytes = Buffer.from(text, "base64");
  if (accepted(text, bytes)) return bytes;
  throw err(field, `invalid base64: ${base64Problem(text) ?? "not canonical"}`);
}

/** base64Problem(text) === undefined, from what Node decoded (property-tested as equal). */
function accepted(text: string, bytes: Buffer): boolean {
  // Node decodes a character past U+007F by its low byte ("ł", U+0142, as "B"): none may pass.
  if (Buffer.byteLength(text, "utf8") !== text.length) return false;
  const padding = text.endsWith("==") ? 2 : text.endsWith("=") ? 1 : 0;
  const data = text.length - padding;
  if (data % 4 === 1 || (padding > 0 && text.length % 4 !== 0)) return false;
  // Every character Node skipped (one outside both alphabets, an early "=") costs a byte.
  if (bytes.length !== Math.floor((data * 3) / 4)) return false;
  if ((text.includes("-") || text.includes("_")) && (text.includes("+") || text.includes("/"))) {
    return false;
  }
  const unusedBits = data % 4 === 2 ? 0x0f : data % 4 === 3 ? 0x03 : 0;
  return ((VALUE[text.charCodeAt(data - 1)] ?? 0) & unusedBits) === 0;
}

/** What makes `text` refused, or undefined when it is accepted (the rule, spelled out). */
export function base64Problem(text: string): string | undefined {
  const padding = text.endsWith("==") ? 2 : text.endsWith("=") ? 1 : 0;
  const data = text.length - padding;
  let seen = 0;
  for (let i = 0; i < data; i++) {
    const c = text.charCodeAt(i);
    const kind = c < 128 ? (CLASS[c] ?? 0) : 0;
    if (kind === 0) {
      return text[i] === "="
        ? `"=" before the end, at offset ${i}`
        : `character ${JSON.stringify(text[i])} at offset ${i}`;
    }
    seen |= kind;
    if ((seen & (STANDARD | URL_SAFE)) === (STANDARD | URL_SAFE)) {
      return `mixes the standard (+/) and URL-safe (-_) alphabets, at offset ${i}`;
    }
  }
  if (padding > 0 && text.length % 4 !== 0) return "padded length is not a multiple of 4";
  if (data % 4 === 1) return "impossible length (one character left over)";
  const unusedBits = data % 4 === 2 ? 0x0f : data % 4 === 3 ? 0x03 : 0;
  if (((VALUE[text.charCodeAt(data - 1)] ?? 0) & unusedBits) !== 0) {
    return "non-zero unused bits in the last character";
  }
  return undefined;
}
