import assert from "node:assert/strict";
import { test } from "node:test";
import { wantsEventStream } from "./wants-event-stream.ts";

test("an event stream named with a q above 0, in any case, subscribes", () => {
  for (const accept of [
    "text/event-stream",
    "TEXT/Event-Stream",
    "application/json, text/event-stream",
    "text/event-stream;q=0.5, application/json",
    "text/event-stream ; charset=utf-8 ; Q=1",
    "*/*;q=0.1,text/event-stream",
  ]) {
    assert.equal(wantsEventStream(accept), true, accept);
  }
});

test("no Accept, ranges, other types, or the event stream at q=0 read a page", () => {
  for (const accept of [
    undefined,
    "",
    "*/*",
    "text/*",
    "application/json",
    "text/event-stream;q=0, application/json",
    "text/event-stream; q=0.000",
    "text/event-stream;q=nope",
    "text/event-streams",
    "application/event-stream",
  ]) {
    assert.equal(wantsEventStream(accept), false, String(accept));
  }
});
