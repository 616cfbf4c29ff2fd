import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import { MAX_FENCING_TOKEN_BYTES } from "../../contract/wire-limits.ts";
import { CommandError, carriesTrim, commandOf, foldCommand, trimBody } from "./command-records.ts";

const header = (name: string, value: string) => ({
  name: Buffer.from(name),
  value: Buffer.from(value),
});
const rec = (headers: ReturnType<typeof header>[], body: Uint8Array | string = "") => ({
  headers,
  body: typeof body === "string" ? Buffer.from(body) : body,
});

test("a record without an empty header name is no command, whatever its headers say", () => {
  assert.equal(commandOf(rec([])), undefined);
  assert.equal(commandOf(rec([header("x", "fence")], "t")), undefined);
  assert.equal(commandOf(rec([header("fence", "")], "t")), undefined);
});

test("fence: the body is the new token, UTF-8, at most 48 bytes, empty allowed", () => {
  assert.deepEqual(commandOf(rec([header("", "fence")], "tök")), { kind: "fence", token: "tök" });
  assert.deepEqual(commandOf(rec([header("", "fence")])), { kind: "fence", token: "" });
  const longest = "x".repeat(MAX_FENCING_TOKEN_BYTES);
  assert.deepEqual(commandOf(rec([header("", "fence")], longest)), {
    kind: "fence",
    token: longest,
  });
  assert.throws(
    () => commandOf(rec([header("", "fence")], `${longest}x`)),
    (err: Error) => err instanceof CommandError && /49 bytes, at most 48/.test(err.message),
  );
  assert.throws(
    () => commandOf(rec([header("", "fence")], Buffer.from([0xff, 0xfe]))),
    (err: Error) => err instanceof CommandError && /must be UTF-8/.test(err.message),
  );
});

test("trim: the body is 8 bytes, big-endian; any u64 round-trips through trimBody", () => {
  fc.assert(
    fc.property(fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }), (seq) => {
      assert.deepEqual(commandOf(rec([header("", "trim")], trimBody(seq))), {
        kind: "trim",
        seqNum: seq,
      });
    }),
  );
  for (const bytes of [0, 7, 9]) {
    assert.throws(
      () => commandOf(rec([header("", "trim")], Buffer.alloc(bytes))),
      (err: Error) => err instanceof CommandError && new RegExp(`not ${bytes}$`).test(err.message),
    );
  }
});

test("an empty header name is a command's only header, and names fence or trim", () => {
  for (const bad of [
    rec([header("", "fence"), header("x", "y")], "t"),
    rec([header("x", "y"), header("", "fence")], "t"),
    rec([header("", "fence"), header("", "fence")], "t"),
  ]) {
    assert.throws(
      () => commandOf(bad),
      (err: Error) => err instanceof CommandError && /has that one header only/.test(err.message),
    );
  }
  assert.throws(
    () => commandOf(rec([header("", "not-a-command")])),
    (err: Error) =>
      err instanceof CommandError && /"not-a-command" is not a command/.test(err.message),
  );
});

test("a batch carries a trim when any record names one as a command, well formed or not", () => {
  const trim = rec([header("", "trim")], trimBody(3n));
  assert.equal(carriesTrim([rec([header("k", "v")]), trim]), true);
  assert.equal(carriesTrim([rec([header("", "trim"), header("k", "v")], "")]), true);
  assert.equal(carriesTrim([rec([header("", "fence")], "t")]), false);
  assert.equal(carriesTrim([rec([header("trim", "")]), rec([header("x", "trim")])]), false);
  assert.equal(carriesTrim([rec([header("", "Trim")], trimBody(3n))]), false);
  assert.equal(carriesTrim([]), false);
});

test("folding: the last fence's token, and the highest trim", () => {
  let effect = foldCommand({}, { kind: "trim", seqNum: 5n });
  effect = foldCommand(effect, { kind: "fence", token: "a" });
  effect = foldCommand(effect, { kind: "trim", seqNum: 3n });
  effect = foldCommand(effect, { kind: "fence", token: "b" });
  assert.deepEqual(effect, { trimTo: 5n, fencingToken: "b" });
  assert.deepEqual(foldCommand(effect, { kind: "trim", seqNum: 9n }), {
    trimTo: 9n,
    fencingToken: "b",
  });
});
