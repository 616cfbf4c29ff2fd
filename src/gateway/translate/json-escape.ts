// Whether record bytes, as the content of a JSON string, need an escape: a `"`, a `\` or a
// control character below U+0020 (the only characters JSON.stringify escapes in well-formed
// text). It runs over every byte of a catch-up read in `raw`, so it is WebAssembly SIMD
// (json-escape.wat, sixteen bytes per step; `npm run bench:codec` compares it with the portable
// code, docs/catchup.md) where the engine has it, else the portable code below.
// Both answer the same for every input (tests).
import { WASM_BASE64 } from "./json-escape.wasm.ts";

/** Four bytes at a time, in plain JavaScript. */
export function needsJsonEscapePortable(bytes: Uint8Array): boolean {
  const end = bytes.length;
  const at = bytes.byteOffset;
  let i = 0;
  while (i < end && (at + i) % 4 !== 0) {
    if (escapes(bytes[i] as number)) return true;
    i++;
  }
  const words = (end - i) >> 2;
  if (words > 0) {
    const view = new Uint32Array(bytes.buffer, at + i, words);
    for (let k = 0; k < words; k++) {
      const w = view[k] as number;
      const quote = w ^ 0x22222222;
      const slash = w ^ 0x5c5c5c5c;
      // A byte below 0x20, or a zero byte after the XORs: the high bit of its lane is set.
      const low = (w - 0x20202020) & ~w;
      const zero = ((quote - 0x01010101) & ~quote) | ((slash - 0x01010101) & ~slash);
      if ((low | zero) & 0x80808080) return true;
    }
    i += words * 4;
  }
  for (; i < end; i++) if (escapes(bytes[i] as number)) return true;
  return false;
}

function escapes(c: number): boolean {
  return c < 0x20 || c === 0x22 || c === 0x5c;
}

/** The WebAssembly check, or undefined where the engine lacks SIMD. */
function loadSimd(): ((bytes: Uint8Array) => boolean) | undefined {
  const code = Buffer.from(WASM_BASE64, "base64");
  if (!WebAssembly.validate(code)) return undefined;
  const { exports } = new WebAssembly.Instance(new WebAssembly.Module(code));
  const memory = new Uint8Array((exports.memory as WebAssembly.Memory).buffer);
  const check = exports.needsEscape as (n: number) => number;
  // The bytes go through the module's one page a window at a time.
  const window = memory.length;
  return (bytes) => {
    for (let from = 0; from < bytes.length; from += window) {
      const part = bytes.subarray(from, from + window);
      memory.set(part, 0);
      if (check(part.length) !== 0) return true;
    }
    return false;
  };
}

export const needsJsonEscapeSimd = loadSimd();

export const needsJsonEscape: (bytes: Uint8Array) => boolean =
  needsJsonEscapeSimd ?? needsJsonEscapePortable;
