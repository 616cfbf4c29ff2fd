// A schema validation failure (Fastify's Ajv errors) as the contract's error: the code by the
// request part at fault (bad_path, bad_query, bad_header, invalid_argument for bodies), and the
// field named as translation names it (records[3].headers[1].value), with what was sent instead.
import type { FastifySchemaValidationError } from "fastify";
import type { HttpError } from "../errors/index.ts";
import { badHeader, badPath, badQuery, type FieldError, invalidArgument } from "../errors/index.ts";
import { describe, fieldPath, stringifyJsonExact } from "../translate/index.ts";

export type RequestPart = "params" | "querystring" | "headers" | "body";

const PARTS: Record<RequestPart, { error: FieldError; root: string; unknown: string }> = {
  params: { error: badPath, root: "path", unknown: "is not a path parameter" },
  querystring: { error: badQuery, root: "query", unknown: "is not a known query parameter" },
  headers: { error: badHeader, root: "headers", unknown: "is not a known header" },
  body: { error: invalidArgument, root: "body", unknown: "is not a known field" },
};

/** `/records/3/headers/1` (a JSON pointer) as its segments. */
function pointerSegments(pointer: string): string[] {
  if (pointer === "") return [];
  return pointer
    .slice(1)
    .split("/")
    .map((s) => s.replaceAll("~1", "/").replaceAll("~0", "~"));
}

/** The segments as a field path; array indexes (numeric segments in arrays) in brackets. */
function fieldOf(segments: readonly string[], data: unknown): string {
  let field = "";
  let node = data;
  for (const segment of segments) {
    const index = Array.isArray(node) && /^[0-9]+$/.test(segment) ? Number(segment) : undefined;
    field = fieldPath(field, index ?? segment);
    node = valueAt(node, segment);
  }
  return field;
}

function valueAt(node: unknown, segment: string): unknown {
  if (node === null || typeof node !== "object") return undefined;
  return Object.hasOwn(node, segment) ? (node as Record<string, unknown>)[segment] : undefined;
}

function lookup(data: unknown, segments: readonly string[]): unknown {
  return segments.reduce(valueAt, data);
}

const ARTICLE: Record<string, string> = {
  string: "a string",
  integer: "an integer",
  number: "a number",
  boolean: "true or false",
  object: "an object",
  array: "an array",
  null: "null",
};

const plural = (n: unknown, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;

/**
 * A sent value as JSON text. Exact: bodies are parsed with big integers as bigints, which
 * JSON.stringify refuses; and no object's own members (a "toString" field) are called.
 */
function shown(value: unknown): string {
  return value === undefined ? describe(value) : stringifyJsonExact(value);
}

/** What is wrong with the value at the error's path, in the words translation uses. */
function reason(e: FastifySchemaValidationError, value: unknown, part: RequestPart): string {
  const p = e.params;
  // A header's value is bytes, which Node reads one character each.
  const unit = part === "headers" ? "byte" : "character";
  switch (e.keyword) {
    case "type":
      return `must be ${wantedTypes([e])}, not ${describe(value)}`;
    case "enum": {
      const values = Array.isArray(p.allowedValues) ? p.allowedValues : [];
      const allowed = values.map(shown);
      return `must be one of ${allowed.join(", ")}, not ${shown(value)}`;
    }
    case "const":
      return `must be ${shown(p.allowedValue)}, not ${shown(value)}`;
    case "pattern":
      return `must match ${String(p.pattern)}, not ${shown(value)}`;
    case "minimum":
      return `must be at least ${p.limit}, not ${shown(value)}`;
    case "maximum":
      return `must be at most ${p.limit}, not ${shown(value)}`;
    case "minLength":
      return p.limit === 1 ? "must not be empty" : `must be at least ${plural(p.limit, unit)}`;
    case "maxLength":
      return `must be at most ${plural(p.limit, unit)}`;
    case "minItems":
      return `must have at least ${plural(p.limit, "item")}`;
    case "maxItems":
      return `must have at most ${plural(p.limit, "item")}`;
    case "minProperties":
      return `must have at least ${plural(p.limit, "field")}`;
    case "maxProperties":
      return `must have at most ${plural(p.limit, "field")}`;
    default:
      return e.message ?? `fails ${e.keyword}`;
  }
}

function wantedTypes(errors: readonly FastifySchemaValidationError[]): string {
  const types = errors.flatMap((e) => String(e.params.type).split(","));
  return [...new Set(types)].map((t) => ARTICLE[t] ?? t).join(" or ");
}

/**
 * The HttpError for a failed validation of `part`, whose value was `data`. With Ajv's
 * allErrors off there is one failure, except under anyOf (integers as number or digits, headers
 * as object or pair), where every branch reports its own; those are narrowed to the branches
 * that took the value's type.
 */
export function validationError(
  errors: readonly FastifySchemaValidationError[],
  part: RequestPart,
  data: unknown,
): HttpError {
  const { error, root, unknown } = PARTS[part];
  const field = (pointer: string, child?: unknown) => {
    const segments = pointerSegments(pointer);
    if (child !== undefined) segments.push(String(child));
    return fieldOf(segments, data) || root;
  };
  const one = (e: FastifySchemaValidationError): HttpError => {
    if (e.keyword === "required")
      return error(field(e.instancePath, e.params.missingProperty), "is required");
    if (e.keyword === "additionalProperties") {
      return error(field(e.instancePath, e.params.additionalProperty), unknown);
    }
    const value = lookup(data, pointerSegments(e.instancePath));
    // A repeated query parameter arrives as an array.
    if (part === "querystring" && Array.isArray(value)) {
      return error(field(e.instancePath), "is given more than once");
    }
    return error(field(e.instancePath), reason(e, value, part));
  };
  const anyOf = errors.find((e) => e.keyword === "anyOf");
  if (anyOf === undefined) {
    const [first] = errors;
    return first === undefined ? error(root, "is not valid") : one(first);
  }
  const branches = errors.filter(
    (e) => e !== anyOf && e.instancePath.startsWith(anyOf.instancePath),
  );
  const typeMisses = branches.filter(
    (e) => e.keyword === "type" && e.instancePath === anyOf.instancePath,
  );
  const rest = branches.filter((e) => !typeMisses.includes(e));
  const value = lookup(data, pointerSegments(anyOf.instancePath));
  // No branch took the value's type: say which types would do.
  if (rest.length === 0) {
    return error(
      field(anyOf.instancePath),
      `must be ${wantedTypes(typeMisses)}, not ${describe(value)}`,
    );
  }
  const [only] = rest;
  if (rest.length === 1 && only !== undefined) return one(only);
  return error(field(anyOf.instancePath), rest.map((e) => one(e).message).join("; or "));
}
