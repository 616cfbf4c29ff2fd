// Test support: asserts that a call fails with the expected HttpError and that its message names
// the offending field.
import assert from "node:assert/strict";
import { HttpError } from "./errors.ts";

export interface ExpectedError {
  status: number;
  code: string;
  /** The field the message must name (and the body's `field` must equal, when it has one). */
  field?: string;
  retryable?: boolean;
}

export function assertHttpError(fn: () => unknown, expected: ExpectedError): HttpError {
  let caught: unknown;
  try {
    fn();
  } catch (e) {
    caught = e;
  }
  assert.ok(caught instanceof HttpError, `expected an HttpError, got ${String(caught)}`);
  assert.equal(caught.status, expected.status, caught.message);
  assert.equal(caught.code, expected.code, caught.message);
  if (expected.field !== undefined) {
    assert.ok(
      caught.message.includes(expected.field),
      `message ${JSON.stringify(caught.message)} does not name ${expected.field}`,
    );
    if ("field" in caught.fields) assert.equal(caught.fields.field, expected.field);
  }
  if (expected.retryable !== undefined) assert.equal(caught.retryable, expected.retryable);
  return caught;
}
