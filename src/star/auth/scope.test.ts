import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import {
  ACTIONS,
  type Action,
  allows,
  contains,
  formatScope,
  type Grant,
  isSubset,
  MAX_SCOPE_CHARS,
  narrowToBucket,
  parseScope,
  type Resource,
  type Scope,
  ScopeError,
} from "./scope.ts";

const bucketArb = fc.constantFrom("bk1", "bk2", "logs", "a-very-long-bucket-name-0");
const prefixArb = fc.oneof(
  fc.constantFrom("a", "ab", "a/", "a/b", "x*y", "%", "sp ace", "é", "😀", "bk1:x"),
  fc.string({ unit: "binary", minLength: 1, maxLength: 12 }),
);
const resourceArb: fc.Arbitrary<Resource> = fc.oneof(
  fc.constant({}),
  bucketArb.map((bucket) => ({ bucket })),
  fc.tuple(bucketArb, prefixArb).map(([bucket, prefix]) => ({ bucket, prefix })),
);
const actionArb = fc.constantFrom<Action>(...ACTIONS);
const grantArb: fc.Arbitrary<Grant> = fc
  .tuple(fc.constantFrom<Grant["action"]>(...ACTIONS, "*"), resourceArb)
  .map(([action, resource]) => ({ action, resource }));
const scopeArb = fc.array(grantArb, { minLength: 1, maxLength: 6 });

test("parseScope(formatScope(s)) is s, and formatting is canonical", () => {
  fc.assert(
    fc.property(scopeArb, (scope) => {
      const text = formatScope(scope);
      assert.deepEqual(parseScope(text), scope);
      assert.equal(formatScope(parseScope(text)), text);
    }),
  );
});

test("the grammar by example", () => {
  const cases: [string, Scope, string][] = [
    ["nova:read:*", [{ action: "read", resource: {} }], "nova:read:*"],
    ["nova:admin", [{ action: "admin", resource: {} }], "nova:admin:*"],
    ["nova:*:bk1", [{ action: "*", resource: { bucket: "bk1" } }], "nova:*:bk1"],
    [
      "nova:append:bk1/logs%2F* nova:trim:bk2",
      [
        { action: "append", resource: { bucket: "bk1", prefix: "logs/" } },
        { action: "trim", resource: { bucket: "bk2" } },
      ],
      "nova:append:bk1/logs%2F* nova:trim:bk2",
    ],
    [
      "nova:read:bk1/%2A%20%C3%A9*",
      [{ action: "read", resource: { bucket: "bk1", prefix: "* é" } }],
      "nova:read:bk1/%2A%20%C3%A9*",
    ],
    [
      "nova:create:bk1/a.b_c~d-*",
      [{ action: "create", resource: { bucket: "bk1", prefix: "a.b_c~d-" } }],
      "nova:create:bk1/a.b_c~d-*",
    ],
  ];
  for (const [text, scope, canonical] of cases) {
    assert.deepEqual(parseScope(text), scope, text);
    assert.equal(formatScope(scope), canonical);
  }
});

test("parseScope refuses everything outside the grammar, saying why", () => {
  const cases: [string, RegExp][] = [
    ["", /empty/],
    [" nova:read:*", /exactly one space/],
    ["nova:read:*  nova:append:*", /exactly one space/],
    ["nova:read:* ", /exactly one space/],
    ["nova:read:*\tnova:append:*", /not a grant/],
    ["read:*", /not a grant/],
    ["nova", /not a grant/],
    ["NOVA:read:*", /not a grant/],
    ["nova:read:*:x", /not a grant/],
    ["nova:write:*", /action is one of read, append, create, trim, admin, node or "\*"/],
    ["nova:Read:*", /action/],
    ["nova::*", /action/],
    ["nova:read:", /resource/],
    ["nova:read:B1", /resource/],
    ["nova:read:b", /resource/],
    ["nova:read:-bk1", /resource/],
    ["nova:read:**", /resource/],
    ["nova:read:*/a*", /resource/],
    ["nova:read:bk1/", /non-empty and ends with "\*"/],
    ["nova:read:bk1/*", /non-empty and ends with "\*"/],
    ["nova:read:bk1/a", /non-empty and ends with "\*"/],
    ["nova:read:bk1/a/b*", /percent-encoded/],
    ["nova:read:bk1/a**", /percent-encoded/],
    ["nova:read:bk1/%61*", /percent-encoded/],
    ["nova:read:bk1/%2f*", /percent-encoded/],
    ["nova:read:bk1/%FF*", /percent-encoded/],
    ["nova:read:bk1/%2*", /percent-encoded/],
    ["nova:read:bk1/é*", /percent-encoded/],
    [`nova:read:bk1/${"a".repeat(513)}*`, /longer than a stream key/],
    [Array(700).fill("nova:read:*").join(" "), new RegExp(`at most ${MAX_SCOPE_CHARS}`)],
  ];
  for (const [text, reason] of cases) {
    assert.throws(
      () => parseScope(text),
      (err: unknown) => {
        assert.ok(err instanceof ScopeError, text);
        assert.match(err.message, reason, text);
        return true;
      },
      text,
    );
  }
});

test("contains is the nesting every bucket ⊇ a bucket ⊇ a prefix ⊇ a longer prefix", () => {
  fc.assert(
    fc.property(resourceArb, resourceArb, resourceArb, (a, b, c) => {
      assert.ok(contains(a, a));
      assert.ok(contains({}, a));
      if (contains(a, b) && contains(b, c)) assert.ok(contains(a, c));
      if (contains(a, b) && contains(b, a)) assert.deepEqual(a, b);
    }),
  );
  assert.ok(contains({ bucket: "bk1" }, { bucket: "bk1", prefix: "x" }));
  assert.ok(contains({ bucket: "bk1", prefix: "lo" }, { bucket: "bk1", prefix: "logs" }));
  assert.ok(!contains({ bucket: "bk1", prefix: "logs" }, { bucket: "bk1", prefix: "lo" }));
  assert.ok(!contains({ bucket: "bk1", prefix: "x" }, { bucket: "bk1" }));
  assert.ok(!contains({ bucket: "bk1" }, { bucket: "bk2", prefix: "x" }));
  assert.ok(!contains({ bucket: "bk1" }, {}));
});

test("allows: the action must match (or be *) and the resource lie within", () => {
  const scope = parseScope("nova:read:* nova:append:bk1/logs%2F* nova:*:bk2");
  const stream = (bucket: string, key: string): Resource => ({ bucket, prefix: key });
  assert.ok(allows(scope, "read", stream("bk9", "anything")));
  assert.ok(allows(scope, "read", { bucket: "bk9" }));
  assert.ok(allows(scope, "append", stream("bk1", "logs/a")));
  assert.ok(!allows(scope, "append", stream("bk1", "logs")));
  assert.ok(!allows(scope, "append", stream("bk3", "logs/a")));
  assert.ok(!allows(scope, "create", stream("bk1", "logs/a")));
  for (const action of ACTIONS) assert.ok(allows(scope, action, stream("bk2", "k")));
  assert.ok(allows(scope, "admin", { bucket: "bk2" }));
  assert.ok(!allows(scope, "admin", {}));
});

test("isSubset: a wider scope allows everything a subset allows", () => {
  fc.assert(
    fc.property(scopeArb, scopeArb, actionArb, resourceArb, (a, b, action, resource) => {
      assert.ok(isSubset(a, a));
      assert.ok(isSubset(a, [{ action: "*", resource: {} }]));
      if (isSubset(a, b) && allows(a, action, resource)) assert.ok(allows(b, action, resource));
    }),
  );
  const key = parseScope("nova:read:* nova:append:bk1");
  assert.ok(isSubset(parseScope("nova:read:bk1/x* nova:append:bk1/y*"), key));
  assert.ok(!isSubset(parseScope("nova:append:bk2"), key));
  assert.ok(!isSubset(parseScope("nova:*:bk1"), key));
  // "*" is the six actions: granted one by one, it is still covered.
  assert.ok(
    isSubset(parseScope("nova:*:bk1"), parseScope(ACTIONS.map((a) => `nova:${a}`).join(" "))),
  );
});

test("narrowToBucket keeps what applies inside the bucket and nothing else", () => {
  fc.assert(
    fc.property(scopeArb, bucketArb, (allowed, bucket) => {
      const narrowed = narrowToBucket(allowed, bucket);
      assert.ok(isSubset(narrowed, allowed));
      for (const g of narrowed) assert.equal(g.resource.bucket, bucket);
      // Nothing inside the bucket is lost.
      for (const g of allowed) {
        const inside = contains(g.resource, { bucket }) ? { bucket } : g.resource;
        if (inside.bucket !== bucket) continue;
        assert.ok(isSubset([{ action: g.action, resource: inside }], narrowed));
      }
    }),
  );
  const allowed = parseScope("nova:read:* nova:append:bk1/logs* nova:admin:bk2 nova:read:bk1");
  assert.equal(formatScope(narrowToBucket(allowed, "bk1")), "nova:read:bk1 nova:append:bk1/logs*");
  assert.equal(formatScope(narrowToBucket(allowed, "bk2")), "nova:read:bk2 nova:admin:bk2");
  assert.equal(formatScope(narrowToBucket(allowed, "bk3")), "nova:read:bk3");
  assert.deepEqual(narrowToBucket(parseScope("nova:append:bk1"), "bk2"), []);
});
