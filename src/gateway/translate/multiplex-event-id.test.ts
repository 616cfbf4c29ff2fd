import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import { assertHttpError } from "../errors/assert-http-error.test-helper.ts";
import { badQuery } from "../errors/index.ts";
import { UINT64 } from "./integers.ts";
import { formatMultiplexId, parseMultiplexId, resumeMultiplexId } from "./multiplex-event-id.ts";

const uint64 = fc.bigInt({ min: 0n, max: UINT64.max });
const positions = fc.array(fc.record({ next: uint64, count: uint64, bytes: uint64 }), {
  minLength: 1,
  maxLength: 64,
});

test("a multiplexed id parses back to every stream's position", () => {
  fc.assert(
    fc.property(positions, (ps) => {
      const text = formatMultiplexId(ps);
      assert.deepEqual(
        parseMultiplexId(text, ps.length, "f", badQuery),
        ps.map((p) => ({ ...p })),
      );
    }),
  );
});

test("the id of one stream at its start reads as such", () => {
  assert.equal(
    formatMultiplexId([
      { next: 8n, count: 1n, bytes: 5n },
      { next: 100n, count: 0n, bytes: 0n },
    ]),
    "0:8,1,5;1:100,0,0",
  );
});

test("a malformed id, or one of another subscription, is refused with the field named", () => {
  const cases: [string, number][] = [
    ["", 1],
    ["0:1,2,3", 2],
    ["0:1,2,3;1:4,5,6", 1],
    ["1:1,2,3;0:4,5,6", 2],
    ["0:1,2,3;0:4,5,6", 2],
    ["0:1,2", 1],
    ["0:1,2,3,4", 1],
    ["1,2,3", 1],
    ["0:-1,2,3", 1],
    ["0: 1,2,3", 1],
    ["0:1,2,3;", 1],
    [`0:${UINT64.max + 1n},0,0`, 1],
    [`0:0,${UINT64.max + 1n},0`, 1],
    ["0:123456789012345678901,0,0", 1],
    ["00000:1,2,3", 1],
  ];
  for (const [text, streams] of cases) {
    assertHttpError(() => parseMultiplexId(text, streams, "last_event_id", badQuery), {
      status: 400,
      code: "bad_query",
    });
  }
});

test("the Last-Event-ID header wins over ?last_event_id=, and errors name where the id came from", () => {
  const q = { last_event_id: "0:1,1,1" };
  assert.deepEqual(resumeMultiplexId("0:9,9,9", q, 1), [{ next: 9n, count: 9n, bytes: 9n }]);
  assert.deepEqual(resumeMultiplexId(undefined, q, 1), [{ next: 1n, count: 1n, bytes: 1n }]);
  assert.equal(resumeMultiplexId("", {}, 1), undefined);
  assertHttpError(() => resumeMultiplexId("2,3,4", {}, 1), { status: 400, code: "bad_header" });
  assertHttpError(() => resumeMultiplexId(undefined, { last_event_id: "x" }, 1), {
    status: 400,
    code: "bad_query",
  });
  assertHttpError(() => resumeMultiplexId(["0:1,1,1", "0:2,2,2"], {}, 1), {
    status: 400,
    code: "bad_header",
    field: "last-event-id",
  });
});
