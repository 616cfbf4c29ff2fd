import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import { assertHttpError } from "../errors/assert-http-error.test-helper.ts";
import { producerForLine, producerFromHeaders } from "./producer-headers.ts";

const headers = (id?: string, epoch?: string, seq?: string) => ({
  "nova-producer-id": id,
  "nova-producer-epoch": epoch,
  "nova-producer-seq": seq,
});

/** The raw name-value list Node keeps of the headers given (each once). */
const rawOf = (h: Record<string, string | undefined>): string[] =>
  Object.entries(h).flatMap(([name, value]) => (value === undefined ? [] : [name, value]));

const fromHeaders = (h: Record<string, string | undefined>) => producerFromHeaders(h, rawOf(h));

test("property: any uint64 epoch and seq are read exactly, and line n gets seq + n", () => {
  fc.assert(
    fc.property(
      fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }),
      fc.bigInt({ min: 0n, max: 2n ** 64n - 1001n }),
      fc.nat(1000),
      (epoch, seq, n) => {
        const p = fromHeaders(headers("p-1", epoch.toString(), seq.toString()));
        assert.deepEqual(p, { id: "p-1", epoch: epoch.toString(), seq: seq.toString() });
        assert.equal(
          producerForLine(p as NonNullable<typeof p>, n).seq,
          (seq + BigInt(n)).toString(),
        );
      },
    ),
  );
});

test("no producer headers: no producer", () => {
  assert.equal(fromHeaders({}), undefined);
});

test("a partial set, a bad id, or a number out of range is 400 bad_header naming the header", () => {
  const cases: [ReturnType<typeof headers>, string][] = [
    [headers("p", "1"), "nova-producer-seq"],
    [headers(undefined, "1", "2"), "nova-producer-id"],
    [headers("", "1", "2"), "nova-producer-id"],
    [headers("x".repeat(129), "1", "2"), "nova-producer-id"],
    [headers("p", "18446744073709551616", "0"), "nova-producer-epoch"],
    [headers("p", "1", "-1"), "nova-producer-seq"],
    [headers("p", "1", "1.5"), "nova-producer-seq"],
  ];
  for (const [h, field] of cases) {
    assertHttpError(() => fromHeaders(h), { status: 400, code: "bad_header", field });
  }
});

test("an id is the UTF-8 text sent, counted in characters; bytes that are not UTF-8 are refused", () => {
  // Node hands header bytes over as Latin-1: the UTF-8 of "é" arrives as "Ã©".
  const asNodeReads = (text: string) => Buffer.from(text).toString("latin1");
  assert.equal(fromHeaders(headers(asNodeReads("é".repeat(128)), "0", "0"))?.id, "é".repeat(128));
  assert.equal(fromHeaders(headers(asNodeReads("ƒ-😀"), "0", "0"))?.id, "ƒ-😀");
  for (const id of [asNodeReads("é".repeat(129)), "\u00e9"]) {
    assertHttpError(() => fromHeaders(headers(id, "0", "0")), {
      status: 400,
      code: "bad_header",
      field: "nova-producer-id",
    });
  }
});

test("a producer header sent twice is 400 bad_header, though Node joined its values", () => {
  // An id may hold ", ": only the raw list shows two headers.
  const joined = headers("a, b", "0", "0");
  assert.equal(fromHeaders(joined)?.id, "a, b");
  const raw = [
    "Nova-Producer-Id",
    "a",
    "nova-producer-id",
    "b",
    ...rawOf(headers(undefined, "0", "0")),
  ];
  assertHttpError(() => producerFromHeaders(joined, raw), {
    status: 400,
    code: "bad_header",
    field: "nova-producer-id",
  });
});

test("a session whose line would pass 2^64-1 is refused on that line", () => {
  const first = { id: "p", epoch: "0", seq: (2n ** 64n - 2n).toString() };
  assert.equal(producerForLine(first, 1).seq, (2n ** 64n - 1n).toString());
  assertHttpError(() => producerForLine(first, 2), { status: 400, code: "invalid_argument" });
});
