import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import { stringifyJsonExact } from "./json-exact.ts";
import { positionText, readBatchToJson, recordsJsonBytes } from "./record-json.ts";
import { servedRecord, uint64Decimal } from "./served-records.test-helper.ts";
import { formatEventId } from "./sse-event-id.ts";
import {
  batchEventBytes,
  batchEventHead,
  doneEvent,
  errorEvent,
  pingEvent,
  sseEvent,
  sseRetry,
} from "./sse-events.ts";

interface Parsed {
  event: string;
  data: string;
  id?: string;
  retry?: number;
}

/** The WHATWG event-stream parser, enough of it to read back what the gateway writes. */
function parse(stream: string): Parsed[] {
  const out: Parsed[] = [];
  let event = "";
  let data: string[] = [];
  let id: string | undefined;
  let retry: number | undefined;
  for (const line of stream.split(/\r\n|\r|\n/)) {
    if (line === "") {
      if (data.length > 0 || retry !== undefined) {
        const p: Parsed = { event: event || "message", data: data.join("\n") };
        if (id !== undefined) p.id = id;
        if (retry !== undefined) p.retry = retry;
        out.push(p);
      }
      event = "";
      data = [];
      id = undefined;
      retry = undefined;
      continue;
    }
    const colon = line.indexOf(":");
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? "" : line.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    if (field === "event") event = value;
    else if (field === "data") data.push(value);
    else if (field === "id") id = value;
    else if (field === "retry") retry = Number(value);
  }
  return out;
}

test("any data survives the wire as one event, line breaks normalised to LF", () => {
  fc.assert(
    fc.property(fc.string(), fc.constantFrom("batch", "ping", "error", "done"), (data, name) => {
      const wire = sseEvent(name as "batch", data);
      const events = parse(wire);
      assert.equal(events.length, 1);
      assert.equal(events[0]?.event, name);
      assert.equal(events[0]?.data, data.replace(/\r\n|\r/g, "\n"));
    }),
  );
});

/** sseEvent as first written: every event split into data lines. */
function splitEvent(event: string, data: string, id?: string): string {
  const idLine = id === undefined ? "" : `id: ${id}\n`;
  const lines = data.split(/\r\n|\r|\n/).map((line) => `data: ${line}\n`);
  return `event: ${event}\n${idLine}${lines.join("")}\n`;
}

test("sseEvent writes what splitting every event into data lines writes", () => {
  const text = fc.string({ unit: fc.constantFrom("a", "\r", "\n", "\u2028", "é", "\u0000") });
  fc.assert(
    fc.property(fc.oneof(fc.string(), text), fc.option(fc.string(), { nil: undefined }), (d, id) =>
      assert.equal(sseEvent("batch", d, id), splitEvent("batch", d, id)),
    ),
  );
});

test("batchEventBytes is the UTF-8 of the event of the batch's JSON, byte for byte", () => {
  const big = fc.bigInt({ min: 0n, max: 2n ** 64n - 1n });
  fc.assert(
    fc.property(
      fc.array(servedRecord, { maxLength: 5 }),
      fc.record({ seq_num: uint64Decimal, timestamp_ms: uint64Decimal }),
      fc.record({ seq_num: big, count: big, bytes: big }),
      fc.constantFrom("raw" as const, "base64" as const),
      fc.constantFrom("number" as const, "string" as const),
      (records, tail, id, format, mode) => {
        const { json: parts, written } = recordsJsonBytes(records, format, mode);
        const shown = records.slice(0, written);
        const json = stringifyJsonExact(readBatchToJson({ records: shown, tail }, format, mode));
        assert.deepEqual(
          batchEventBytes(batchEventHead(formatEventId(id)), parts, positionText(tail, mode)),
          Buffer.from(sseEvent("batch", json, formatEventId(id)), "utf8"),
        );
      },
    ),
  );
});

test("events concatenate: each keeps its name, id and data", () => {
  const wire =
    sseRetry(1500) +
    batchEventBytes(
      batchEventHead("9,10,300"),
      recordsJsonBytes(
        [{ seq_num: "9", timestamp_ms: "1", headers: [], body: Buffer.from("a\nb") }],
        "raw",
        "number",
      ).json,
      positionText({ seq_num: "10", timestamp_ms: "0" }, "number"),
    ).toString("utf8") +
    pingEvent({ timestamp_ms: 5n, tail: tail(10n) }) +
    errorEvent({
      code: "slow_consumer",
      message: "m",
      retryable: true,
      last_event_id: "9,10,300",
    }) +
    doneEvent(tail(10n));
  const events = parse(wire);
  assert.deepEqual(
    events.map((e) => [e.event, e.id, e.retry]),
    [
      ["message", undefined, 1500],
      ["batch", "9,10,300", undefined],
      ["ping", undefined, undefined],
      ["error", undefined, undefined],
      ["done", undefined, undefined],
    ],
  );
  const batch = JSON.parse(events[1]?.data ?? "");
  assert.equal(batch.records[0].body, "a\nb");
  assert.equal(batch.tail.seq_num, 10);
  assert.deepEqual(JSON.parse(events[2]?.data ?? ""), {
    timestamp_ms: 5,
    tail: { seq_num: 10, timestamp_ms: 0 },
  });
  assert.equal(JSON.parse(events[3]?.data ?? "").last_event_id, "9,10,300");
  assert.deepEqual(JSON.parse(events[4]?.data ?? ""), { next: { seq_num: 10, timestamp_ms: 0 } });
});

test("integers beyond 2^53 are written exactly", () => {
  const big = 2n ** 60n + 1n;
  const wire = pingEvent({ timestamp_ms: big, tail: tail(big) });
  assert.match(wire, new RegExp(`"timestamp_ms":${big}`));
  assert.match(wire, new RegExp(`"seq_num":${big}`));
});

test("retry is a whole number of milliseconds, never negative", () => {
  assert.equal(sseRetry(1234.6), "retry: 1235\n\n");
  assert.equal(sseRetry(-5), "retry: 0\n\n");
});

function tail(seq: bigint) {
  return { seq_num: seq, timestamp_ms: 0n };
}
