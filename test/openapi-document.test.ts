// The published OpenAPI document (openapi/openapi.json, OpenAPI 3.1): every schema in it is a
// valid JSON Schema 2020-12 schema, the dialect OpenAPI 3.1 names, so tools that read it (client
// generators, validators) take it as written; and no response without a body declares one.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { Ajv2020 } from "ajv/dist/2020.js";

const doc = JSON.parse(
  readFileSync(join(import.meta.dirname, "..", "openapi", "openapi.json"), "utf8"),
) as Record<string, unknown>;

/** Every `schema` object in the document, with where it is. */
function schemas(node: unknown, at: string, found: [string, unknown][] = []): [string, unknown][] {
  if (Array.isArray(node)) {
    for (const [i, v] of node.entries()) schemas(v, `${at}/${i}`, found);
  } else if (node && typeof node === "object") {
    for (const [key, value] of Object.entries(node)) {
      if (key === "schema") found.push([`${at}/schema`, value]);
      else schemas(value, `${at}/${key}`, found);
    }
  }
  return found;
}

test("every schema in the OpenAPI document is valid JSON Schema 2020-12", () => {
  const ajv = new Ajv2020({ strict: false, validateFormats: false });
  const components = (doc.components as { schemas: Record<string, unknown> }).schemas;
  const all: [string, unknown][] = [
    ...Object.entries(components).map(([name, s]): [string, unknown] => [name, s]),
    ...schemas(doc.paths, "paths"),
  ];
  assert.ok(all.length > 100, `${all.length} schemas found`);
  const invalid = all.filter(([, schema]) => !ajv.validateSchema(schema as object));
  assert.deepEqual(
    invalid.map(([where]) => where),
    [],
  );
});

test("a 204 or 304 answer declares no body", () => {
  const noBody: string[] = [];
  for (const [path, item] of Object.entries(doc.paths as Record<string, Record<string, unknown>>)) {
    for (const [method, op] of Object.entries(item)) {
      const responses = (op as { responses?: Record<string, { content?: unknown }> }).responses;
      for (const status of ["204", "304"]) {
        if (responses?.[status]?.content !== undefined) noBody.push(`${method} ${path} ${status}`);
      }
    }
  }
  assert.deepEqual(noBody, []);
});
