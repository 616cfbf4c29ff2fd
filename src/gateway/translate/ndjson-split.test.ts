import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import {
  type NdjsonLimits,
  type NdjsonLine,
  NdjsonSplitter,
  type SplitResult,
} from "./ndjson-split.ts";

const roomy: NdjsonLimits = { maxLineBytes: 1 << 20, maxSessionBytes: 1 << 30 };

/** Feeds `body` cut at `cuts` (offsets), then ends; collects lines up to a refusal. */
function split(body: Buffer, cuts: number[], limits = roomy) {
  const s = new NdjsonSplitter(limits);
  const lines: NdjsonLine[] = [];
  const points = [...new Set(cuts.map((c) => c % (body.length + 1)))].sort((a, b) => a - b);
  let from = 0;
  const feed = (r: SplitResult) => {
    lines.push(...r.lines);
    return r.refused;
  };
  for (const to of [...points, body.length]) {
    const refused = feed(s.push(body.subarray(from, to)));
    if (refused) return { lines, refused };
    from = to;
  }
  return { lines, refused: feed(s.end()) };
}

const text = (lines: NdjsonLine[]) => lines.map((l) => [l.lineNo, l.bytes.toString()]);

test("however the body is cut into chunks, the same lines come out, numbered", () => {
  const line = fc.stringMatching(/^[^\n\r]{0,12}$/);
  fc.assert(
    fc.property(
      fc.array(line, { maxLength: 20 }),
      fc.boolean(),
      fc.boolean(),
      fc.array(fc.nat(), { maxLength: 10 }),
      (lines, crlf, trailing, cuts) => {
        const body = Buffer.from(lines.join(crlf ? "\r\n" : "\n") + (trailing ? "\n" : ""));
        const got = split(body, cuts);
        assert.equal(got.refused, undefined);
        const expected = lines
          .map((l, i) => [i + 1, l] as const)
          .filter(([, l]) => !/^[ \t]*$/.test(l));
        assert.deepEqual(text(got.lines), expected);
      },
    ),
  );
});

test("a line of exactly the limit passes, with LF or CRLF; one byte more is 413 naming it", () => {
  const limits = { maxLineBytes: 5, maxSessionBytes: 1000 };
  assert.deepEqual(text(split(Buffer.from("12345\n12345\r\n12345"), [], limits).lines), [
    [1, "12345"],
    [2, "12345"],
    [3, "12345"],
  ]);
  for (const body of ["ok\n123456\nnext\n", "ok\n123456\r\nnext\n", "ok\n123456"]) {
    const got = split(Buffer.from(body), [1, 4, 7], limits);
    assert.deepEqual(text(got.lines), [[1, "ok"]]);
    assert.equal(got.refused?.lineNo, 2);
    assert.equal(got.refused?.error.status, 413);
    assert.equal(got.refused?.error.code, "payload_too_large");
    assert.match(got.refused?.error.message ?? "", /^line 2: is over 5 bytes/);
  }
});

test("an endless line is refused as soon as it passes the limit, without buffering more", () => {
  const s = new NdjsonSplitter({ maxLineBytes: 10, maxSessionBytes: 1 << 30 });
  assert.deepEqual(s.push(Buffer.from("a\n0123456789")).lines.length, 1);
  // The 11th byte may yet be a CR before an LF.
  assert.equal(s.push(Buffer.from("\r")).refused, undefined);
  const r = s.push(Buffer.from("x"));
  assert.equal(r.refused?.lineNo, 2);
  assert.equal(s.push(Buffer.from("\n{}\n")).lines.length, 0, "nothing after a refusal");
  assert.equal(s.end().refused?.lineNo, 2);
});

test("the session limit counts every byte; the crossing line is refused, earlier ones kept", () => {
  const limits = { maxLineBytes: 100, maxSessionBytes: 12 };
  // "aaaa\n" is 5 bytes: two lines are 10, the third crosses 12.
  const got = split(Buffer.from("aaaa\naaaa\naaaa\n"), [3, 8, 11], limits);
  assert.deepEqual(text(got.lines), [
    [1, "aaaa"],
    [2, "aaaa"],
  ]);
  assert.equal(got.refused?.lineNo, 3);
  assert.equal(got.refused?.error.code, "payload_too_large");
  assert.match(got.refused?.error.message ?? "", /^line 3: brings the session over 12 bytes/);
  assert.equal(split(Buffer.from("aaaa\naaaa\n12"), [], limits).refused, undefined);
});

test("blank and whitespace-only lines are skipped but counted", () => {
  assert.deepEqual(text(split(Buffer.from("\n  \n\t\r\n{}\n\n[]"), []).lines), [
    [4, "{}"],
    [6, "[]"],
  ]);
});
