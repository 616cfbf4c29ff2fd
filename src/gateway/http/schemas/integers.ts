// Exact integers in HTTP schemas: a JSON integer, or its decimal digits as a string (what
// parseJsonExact yields beyond 2^53-1, what ?int64=string writes, and what JS clients may send).
//
// The string comes first on purpose. Fastify's default Ajv options coerce types inside anyOf
// branches: with the integer first, the string "12345678901234567890123" is coerced to a double
// and silently rounded. With the string first, strings are left alone and a JSON integer is at
// worst coerced to its exact digits, which translation reads just the same.
import { Type } from "typebox";

/** uint64: 0 to 2^64-1. */
export const Uint64 = (description: string) =>
  Type.Union([Type.String({ pattern: "^[0-9]{1,20}$" }), Type.Integer({ minimum: 0 })], {
    description: `${description} (uint64; exact: digits beyond 2^53-1, or a decimal string)`,
  });

/** int64: -2^63 to 2^63-1. */
export const Int64 = (description: string) =>
  Type.Union([Type.String({ pattern: "^-?[0-9]{1,19}$" }), Type.Integer()], {
    description: `${description} (int64; exact: digits beyond 2^53-1, or a decimal string)`,
  });

export const Uint32 = (description: string) =>
  Type.Integer({ minimum: 0, maximum: 4294967295, description });
