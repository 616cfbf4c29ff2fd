import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import {
  JsonSyntaxError,
  JsonTooLargeError,
  MAX_JSON_DEPTH,
  parseJsonExact,
  stringifyJsonExact,
} from "./json-exact.ts";

/**
 * An integer beyond 2^53-1 of at most 25 digits, however written (1e21 too): the one place
 * parseJsonExact differs, giving its exact digits.
 */
function hasUnsafeIntegerLexeme(v: unknown): boolean {
  if (typeof v === "number")
    return Number.isInteger(v) && !Number.isSafeInteger(v) && Math.abs(v) < 1e25;
  if (Array.isArray(v)) return v.some(hasUnsafeIntegerLexeme);
  if (v !== null && typeof v === "object") return Object.values(v).some(hasUnsafeIntegerLexeme);
  return false;
}

const plainJson = fc.jsonValue().filter((v) => !hasUnsafeIntegerLexeme(v));

test("parses whatever JSON.parse parses, to the same value", () => {
  fc.assert(
    fc.property(plainJson, (v) => {
      const text = JSON.stringify(v);
      assert.deepEqual(parseJsonExact(text), JSON.parse(text));
      const spaced = JSON.stringify(v, null, "\t \r\n");
      assert.deepEqual(parseJsonExact(spaced), JSON.parse(spaced));
    }),
  );
});

test("strings survive every escape form, including \\u escapes of every code unit", () => {
  const escapeUnits = (c: string) =>
    Array.from(
      { length: c.length },
      (_, i) => `\\u${c.charCodeAt(i).toString(16).padStart(4, "0")}`,
    ).join("");
  // Every code point escaped, or every other one (a pair is always escaped whole).
  const escapeAll = (s: string) => `"${escapeUnits(s)}"`;
  const escapeSome = (s: string) =>
    `"${[...s].map((c, i) => (i % 2 === 0 ? escapeUnits(c) : JSON.stringify(c).slice(1, -1))).join("")}"`;
  fc.assert(
    fc.property(fc.string({ unit: "binary" }), (s) => {
      assert.equal(parseJsonExact(JSON.stringify(s)), s);
      assert.equal(parseJsonExact(escapeAll(s)), s);
      assert.equal(parseJsonExact(escapeSome(s)), s);
    }),
  );
  assert.equal(parseJsonExact(String.raw`"\"\\\/\b\f\n\r\t"`), '"\\/\b\f\n\r\t');
});

test("integers beyond 2^53-1 keep their exact digits; safe ones are numbers", () => {
  fc.assert(
    fc.property(fc.bigInt({ min: -(2n ** 70n), max: 2n ** 70n }), (n) => {
      const safe = n >= BigInt(Number.MIN_SAFE_INTEGER) && n <= BigInt(Number.MAX_SAFE_INTEGER);
      assert.deepEqual(parseJsonExact(`[${n}]`), [safe ? Number(n) : n.toString()]);
    }),
  );
  assert.deepEqual(parseJsonExact("9007199254740991"), 9007199254740991);
  assert.deepEqual(parseJsonExact("9007199254740992"), "9007199254740992");
  assert.deepEqual(parseJsonExact("-9007199254740992"), "-9007199254740992");
  assert.deepEqual(parseJsonExact("18446744073709551615"), "18446744073709551615");
  // Other numbers are doubles, as in JSON.parse, when a double says what they are.
  assert.equal(parseJsonExact("1.5"), 1.5);
  assert.equal(parseJsonExact("1e30"), 1e30);
  assert.ok(Object.is(parseJsonExact("-0"), -0));
});

/** How an integer may be written with a fraction or an exponent, its value the same. */
const spelled = (n: bigint, zeros: number, shift: number): string => {
  const sign = n < 0n ? "-" : "";
  // Zero has no digits to shift (its zeros would lead: 00.0 is not JSON).
  const digits = n === 0n ? "0" : (n < 0n ? -n : n).toString() + "0".repeat(zeros);
  // digits x 10^-zeros is n; written as d.ddd x 10^(point) or ddd.000.
  const point = Math.min(shift, digits.length - 1);
  return point > 0
    ? `${sign}${digits.slice(0, digits.length - point)}.${digits.slice(digits.length - point)}e${point - zeros}`
    : `${sign}${digits}.0e-${zeros}`;
};

test("property: an integer written with a fraction or exponent is that integer, exactly", () => {
  fc.assert(
    fc.property(
      fc.bigInt({ min: -(2n ** 70n), max: 2n ** 70n }),
      fc.nat(5),
      fc.nat(30),
      (n, zeros, shift) => {
        const safe = n >= BigInt(Number.MIN_SAFE_INTEGER) && n <= BigInt(Number.MAX_SAFE_INTEGER);
        assert.deepEqual(parseJsonExact(spelled(n, zeros, shift)), safe ? Number(n) : n.toString());
      },
    ),
  );
  assert.equal(parseJsonExact("1.0"), 1);
  assert.equal(parseJsonExact("1e3"), 1000);
  assert.equal(parseJsonExact("1e20"), "100000000000000000000");
  assert.equal(parseJsonExact("18446744073709551615.000"), "18446744073709551615");
  assert.equal(parseJsonExact("-0.0e5"), 0);
});

test("property: a fraction is never taken for an integer, though a double would round it to one", () => {
  fc.assert(
    fc.property(
      fc.bigInt({ min: -(2n ** 70n), max: 2n ** 70n }),
      fc.stringMatching(/^[0-9]{0,25}[1-9]$/),
      fc.integer({ min: -3, max: 3 }),
      (n, fraction, exponent) => {
        // n.fraction x 10^-k for k >= 0 always has a fraction left.
        const text = `${n}.${fraction}e${-Math.abs(exponent)}`;
        let value: unknown;
        try {
          value = parseJsonExact(text);
        } catch (err) {
          assert.ok(err instanceof JsonSyntaxError);
          assert.match(err.message, /is not an integer, though a double rounds it to/);
          return;
        }
        assert.equal(typeof value, "number");
        assert.ok(!Number.isInteger(value), `${text} -> ${value}`);
      },
    ),
  );
  assert.throws(() => parseJsonExact("1.0000000000000001"), /position 0/);
  assert.throws(() => parseJsonExact('{"a":4503599627370496.5}'), /position 5/);
  assert.throws(() => parseJsonExact("-1e-400"), /not an integer, though a double rounds it to 0/);
  assert.throws(() => parseJsonExact("0.99999999999999999"), /rounds it to 1/);
  // Every double beyond 2^53 is a whole number.
  assert.throws(() => parseJsonExact("12345678901234567890.5"), /not an integer/);
  // A number as long as a body may make it is read in time linear in its length (a million
  // digits took hours where zeros were counted with a backtracking regex).
  const long = `1.${"0".repeat(1_000_000)}1`;
  assert.throws(
    () => parseJsonExact(long),
    (err: Error) =>
      err.message ===
      `1.${"0".repeat(38)}… is not an integer, though a double rounds it to 1 at position 0`,
  );
  assert.equal(parseJsonExact(`1${"0".repeat(20)}.${"0".repeat(1_000_000)}e-20`), 1);
});

test("stringifyJsonExact equals JSON.stringify without bigints", () => {
  fc.assert(
    fc.property(fc.jsonValue(), (v) => assert.equal(stringifyJsonExact(v), JSON.stringify(v))),
  );
  const odd = {
    a: undefined,
    f: () => 1,
    n: Number.NaN,
    i: -Infinity,
    d: new Date(0),
    arr: [undefined, () => 1],
  };
  assert.equal(stringifyJsonExact(odd), JSON.stringify(odd));
  assert.equal(stringifyJsonExact("\ud800"), JSON.stringify("\ud800"));
  // toJSON is given the member's name or the element's index, as a string; holes are null.
  const keyed = { toJSON: (k: string) => `key ${JSON.stringify(k)}` };
  const withKeys = { a: keyed, list: [keyed, keyed], nested: { "b\n": keyed } };
  assert.equal(stringifyJsonExact(withKeys), JSON.stringify(withKeys));
  assert.equal(stringifyJsonExact(keyed), JSON.stringify(keyed));
  // biome-ignore lint/suspicious/noSparseArray: a hole is what is tested.
  const sparse = [, 1, , undefined];
  assert.equal(stringifyJsonExact(sparse), JSON.stringify(sparse));
  assert.throws(() => stringifyJsonExact(undefined), TypeError);
});

test("bigints are written as digits and parse back exactly", () => {
  fc.assert(
    fc.property(fc.bigInt({ min: -(2n ** 63n), max: 2n ** 64n - 1n }), (n) => {
      const text = stringifyJsonExact({ seq_num: n, list: [n] });
      assert.equal(text, `{"seq_num":${n},"list":[${n}]}`);
      const back = parseJsonExact(text) as { seq_num: number | string };
      assert.equal(BigInt(back.seq_num), n);
    }),
  );
});

test('"__proto__" is an own member, never the prototype', () => {
  const v = parseJsonExact('{"__proto__": {"x": 1}}') as Record<string, unknown>;
  assert.deepEqual(v, JSON.parse('{"__proto__": {"x": 1}}'));
  assert.equal(Object.getPrototypeOf(v), Object.prototype);
  assert.deepEqual(Object.keys(v), ["__proto__"]);
});

test("a long string is parsed whole", () => {
  const body = "QUJD".repeat(4 * 1024 * 1024);
  assert.equal((parseJsonExact(`{"body":"${body}"}`) as { body: string }).body, body);
  const escaped = `${"a".repeat(1000)}\\n`.repeat(1000);
  assert.equal(parseJsonExact(`"${escaped}"`), `${"a".repeat(1000)}\n`.repeat(1000));
});

const invalid: [string, string, number][] = [
  ["", "unexpected end of input", 0],
  ["   ", "unexpected end of input", 3],
  ["[1,]", "unexpected character", 3],
  ['{"a":1,}', "unexpected character", 7],
  ["[1 2]", "unexpected character", 3],
  ['{"a" 1}', "unexpected character", 5],
  ["{a:1}", "unexpected character", 1],
  ["{'a':1}", "unexpected character", 1],
  ["// c\n1", "unexpected character", 0],
  ["1 /* c */", "unexpected data after the JSON value", 2],
  ["NaN", "unexpected character", 0],
  ["Infinity", "unexpected character", 0],
  ["-Infinity", "invalid number", 1],
  ["+1", "unexpected character", 0],
  ["01", "unexpected data after the JSON value", 1],
  ["1.", "invalid number", 2],
  [".5", "unexpected character", 0],
  ["1e", "invalid number", 2],
  ["1e+", "invalid number", 3],
  ["-", "invalid number", 1],
  ["tru", "unexpected character", 0],
  ["nul", "unexpected character", 0],
  ['"abc', "unterminated string", 4],
  ['"a\\', "unterminated string", 2],
  ['"a\nb"', "unescaped control character", 2],
  ['"\t"', "unescaped control character", 1],
  ['"\\x"', "invalid escape", 1],
  ['"\\u12g4"', "invalid \\u escape", 1],
  ['"\\ud800"', "unpaired surrogate escape", 1],
  ['"\\udc00"', "unpaired surrogate escape", 1],
  ['"\\ud800\\u0041"', "unpaired surrogate escape", 1],
  ['"\\ud800x"', "unpaired surrogate escape", 1],
  ['{"a":1,"a":2}', 'duplicate key "a"', 7],
  ["1 2", "unexpected data after the JSON value", 2],
  ["[", "unexpected end of input", 1],
  ['{"a":', "unexpected end of input", 5],
];

test("refuses what RFC 8259 does not allow, saying where", () => {
  for (const [text, reason, position] of invalid) {
    assert.throws(
      () => parseJsonExact(text),
      (e: unknown) => {
        assert.ok(e instanceof JsonSyntaxError, `${JSON.stringify(text)}: ${String(e)}`);
        assert.ok(e.message.includes(reason), `${JSON.stringify(text)}: ${e.message}`);
        assert.equal(e.position, position, `${JSON.stringify(text)}: ${e.message}`);
        return true;
      },
    );
  }
});

test("nesting is bounded instead of overflowing the stack", () => {
  const ok = `${"[".repeat(MAX_JSON_DEPTH)}${"]".repeat(MAX_JSON_DEPTH)}`;
  assert.ok(Array.isArray(parseJsonExact(ok)));
  const deep = `${"[".repeat(100_000)}${"]".repeat(100_000)}`;
  assert.throws(() => parseJsonExact(deep), /nesting deeper than 512/);
  assert.throws(() => parseJsonExact('{"a":'.repeat(MAX_JSON_DEPTH + 1)), /nesting deeper/);
});

test("property: a text of n values parses with room for n, and is refused with room for n - 1", () => {
  const count = (v: unknown): number =>
    1 +
    (Array.isArray(v)
      ? v.reduce((n: number, e) => n + count(e), 0)
      : v !== null && typeof v === "object"
        ? Object.values(v).reduce((n: number, e) => n + count(e), 0)
        : 0);
  fc.assert(
    fc.property(fc.jsonValue(), (v) => {
      const text = JSON.stringify(v);
      const n = count(JSON.parse(text));
      parseJsonExact(text, n);
      assert.throws(() => parseJsonExact(text, n - 1), JsonTooLargeError);
    }),
  );
});
