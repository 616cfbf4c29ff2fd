// Shape checks on parsed JSON input, each naming the offending field. Translation re-checks what
// the HTTP schemas declare because NDJSON lines never pass through Fastify's validator, and
// because Fastify's default Ajv options strip unknown fields and coerce types instead of refusing.
import type { FieldError } from "../errors/index.ts";

/** `records[3].headers[1].value`: the path of a nested field, for messages. */
export function fieldPath(parent: string, key: string | number): string {
  if (typeof key === "number") return `${parent}[${key}]`;
  return parent === "" ? key : `${parent}.${key}`;
}

/** A plain JSON object; `null` is never taken for an absent object. */
export function asObject(value: unknown, field: string, err: FieldError): Record<string, unknown> {
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    throw err(field, `must be an object, not ${describe(value)}`);
  }
  return value as Record<string, unknown>;
}

/** Refuses the first member whose name is not in `known`. */
export function rejectUnknown(
  obj: Record<string, unknown>,
  known: ReadonlySet<string>,
  parent: string,
  err: FieldError,
): void {
  for (const key of Object.keys(obj)) {
    if (!known.has(key)) throw err(fieldPath(parent, key), "is not a known field");
  }
}

export function asArray(value: unknown, field: string, err: FieldError): unknown[] {
  if (!Array.isArray(value)) throw err(field, `must be an array, not ${describe(value)}`);
  return value;
}

export function asString(value: unknown, field: string, err: FieldError): string {
  if (typeof value !== "string") throw err(field, `must be a string, not ${describe(value)}`);
  return value;
}

export function asBoolean(value: unknown, field: string, err: FieldError): boolean {
  if (typeof value !== "boolean") throw err(field, `must be true or false, not ${describe(value)}`);
  return value;
}

/** Refuses text with lone surrogates, which has no UTF-8 form (it would be silently replaced). */
export function asWellFormed(value: string, field: string, err: FieldError): string {
  if (!value.isWellFormed()) {
    throw err(field, "contains an unpaired surrogate, which has no UTF-8 form");
  }
  return value;
}

/** `null`, `an array`, `a number`...: what was sent instead. */
export function describe(value: unknown): string {
  if (value === null) return "null";
  if (value === undefined) return "nothing";
  if (Array.isArray(value)) return "an array";
  const type = typeof value;
  return `${type === "object" ? "an" : "a"} ${type}`;
}
