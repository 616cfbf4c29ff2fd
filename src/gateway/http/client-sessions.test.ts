import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import { HttpError } from "../errors/index.ts";
import { ClientSessions } from "./client-sessions.ts";

test("past its bound a client's next session is a retryable 429; others are not held back", () => {
  const s = new ClientSessions(2);
  s.hold("a");
  const release = s.hold("a");
  assert.throws(
    () => s.hold("a"),
    (e: unknown) => {
      assert.ok(e instanceof HttpError);
      assert.equal(e.status, 429);
      assert.equal(e.code, "resource_exhausted");
      assert.equal(e.retryable, true);
      assert.ok(e.headers?.["retry-after"]);
      assert.match(
        e.message,
        /this client has 2 sessions open .*at most 2, --max-sessions-per-client/,
      );
      return true;
    },
  );
  s.hold("b");
  release();
  release();
  assert.equal(s.count("a"), 1, "a release counts once");
  s.hold("a");
});

test("property: each client holds at most max at once, and every release is counted once", () => {
  fc.assert(
    fc.property(
      fc.integer({ min: 1, max: 4 }),
      fc.array(fc.record({ client: fc.constantFrom("a", "b", "c"), hold: fc.boolean() })),
      (max, steps) => {
        const s = new ClientSessions(max);
        const held = new Map<string, (() => void)[]>();
        for (const { client, hold } of steps) {
          const mine = held.get(client) ?? [];
          held.set(client, mine);
          if (hold) {
            if (mine.length < max) mine.push(s.hold(client));
            else assert.throws(() => s.hold(client), HttpError);
          } else {
            const release = mine.pop();
            release?.();
            release?.();
          }
          assert.equal(s.count(client), mine.length);
        }
        assert.equal(s.clients, [...held.values()].filter((h) => h.length > 0).length);
      },
    ),
  );
});
