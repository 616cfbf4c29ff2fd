// Exact 64-bit integers at the JSON boundary. In: a JSON number (a safe integer) or a decimal
// string (what parseJsonExact yields beyond 2^53-1, or what a JS client sends on purpose), range
// checked, as bigint. Out: bigint written as digits, or a decimal string under ?int64=string.
import { badQuery, type FieldError } from "../errors/index.ts";
import { describe } from "./fields.ts";
import { type Query, queryParam } from "./query-params.ts";

export type Int64Mode = "number" | "string";
/** An int64/uint64 on its way out: bigint (written as JSON digits) or a decimal string. */
export type ExactInt = bigint | string;

export interface IntRange {
  readonly min: bigint;
  readonly max: bigint;
}

export const UINT64: IntRange = { min: 0n, max: (1n << 64n) - 1n };
export const INT64: IntRange = { min: -(1n << 63n), max: (1n << 63n) - 1n };
export const UINT32: IntRange = { min: 0n, max: (1n << 32n) - 1n };

// At most 20 digits (uint64's max has 20): bounds BigInt's work on hostile input.
const DECIMAL = /^-?[0-9]{1,20}$/;

/** Reads an exact integer in `range` from a JSON number or decimal string. */
export function readExactInt(
  value: unknown,
  range: IntRange,
  field: string,
  err: FieldError,
): bigint {
  const expected = `must be an integer from ${range.min} to ${range.max}`;
  let n: bigint;
  if (typeof value === "number") {
    if (!Number.isInteger(value)) throw err(field, `${expected}, not ${value}`);
    // Only an integer of more than 25 digits written with a fraction or exponent (1e30) gets
    // here unsafe.
    if (!Number.isSafeInteger(value)) {
      throw err(field, `${value} is beyond 2^53-1 as a float; write it as plain digits`);
    }
    n = BigInt(value);
  } else if (typeof value === "string") {
    if (!DECIMAL.test(value)) throw err(field, `${expected}, not ${JSON.stringify(value)}`);
    n = BigInt(value);
  } else {
    throw err(field, `${expected}, not ${describe(value)}`);
  }
  if (n < range.min || n > range.max) throw err(field, `${expected}, not ${n}`);
  return n;
}

/** A uint32 as a JS number. */
export function readUint32(value: unknown, field: string, err: FieldError): number {
  return Number(readExactInt(value, UINT32, field, err));
}

/** A proto-loader decimal string (or bigint) in the client's chosen int64 mode. */
export function writeExactInt(value: string | bigint, mode: Int64Mode): ExactInt {
  const n = BigInt(value);
  return mode === "string" ? n.toString() : n;
}

/** The `int64` query parameter: `number` (default) or `string`. */
export function parseInt64Mode(query: Query): Int64Mode {
  const value = queryParam(query, "int64");
  if (value === undefined || value === "number" || value === "string") return value ?? "number";
  throw badQuery("int64", `must be "number" or "string", not ${JSON.stringify(value)}`);
}
