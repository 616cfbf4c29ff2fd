import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import { gapDamage, LogDamageError, type LogObjectOutline, tornToPassOver } from "./damage-rule.ts";

const object = (n: number, torn = false): LogObjectOutline => ({
  key: `log/star/${n}`,
  number: BigInt(n),
  damage: torn ? "log object: 0 bytes, shorter than header and trailer" : undefined,
});

test("the newest objects, those whose PUT may have been in flight, may be torn: passed over", () => {
  const objects = [object(3), object(4), object(5, true)];
  assert.deepEqual(tornToPassOver(objects, 1), [objects[2]]);
  assert.deepEqual(tornToPassOver([object(4, true), object(5)], 2), [object(4, true)]);
  assert.deepEqual(tornToPassOver([object(3), object(4)], 1), []);
  assert.deepEqual(tornToPassOver([], 1), []);
});

test("a damaged object older than the PUTs in flight is an error naming it and why", () => {
  assert.throws(
    () => tornToPassOver([object(3, true), object(4), object(5)], 2),
    (err: unknown) =>
      err instanceof LogDamageError &&
      /^log object log\/star\/3 is damaged \(log object: 0 bytes.*\) and is not among the newest 2 \(--log-puts-in-flight; the newest is log\/star\/5\)/.test(
        err.message,
      ),
  );
  // A torn newest object does not excuse a damaged one in the middle.
  assert.throws(
    () => tornToPassOver([object(1), object(2, true), object(3), object(4, true)], 1),
    /log object log\/star\/2 is damaged/,
  );
});

/** Log objects in any order, numbers unique, some damaged; and a --log-puts-in-flight. */
const logArb = fc
  .tuple(
    fc.uniqueArray(fc.nat(60), { minLength: 1, maxLength: 20 }),
    fc.array(fc.boolean(), { minLength: 20, maxLength: 20 }),
    fc.integer({ min: 1, max: 6 }),
  )
  .map(([numbers, damaged, inFlight]) => ({
    objects: numbers.map((n, i) => object(n, damaged[i])),
    inFlight,
  }));

test("property: passed over are exactly the damaged objects when all are among the newest; else the oldest damaged is named", () => {
  fc.assert(
    fc.property(logArb, ({ objects, inFlight }) => {
      const newest = Math.max(...objects.map((o) => Number(o.number)));
      const damaged = objects.filter((o) => o.damage !== undefined);
      const allRecent = damaged.every((o) => Number(o.number) > newest - inFlight);
      if (allRecent) {
        assert.deepEqual(tornToPassOver(objects, inFlight), damaged);
        return;
      }
      const oldest = Math.min(...damaged.map((o) => Number(o.number)));
      assert.throws(
        () => tornToPassOver(objects, inFlight),
        (err: unknown) =>
          err instanceof LogDamageError &&
          err.objectKey === `log/star/${oldest}` &&
          err.message.startsWith(`log object log/star/${oldest} is damaged`),
      );
    }),
    { numRuns: 500 },
  );
});

test("property: the verdict does not depend on the order the objects are listed in", () => {
  fc.assert(
    fc.property(
      logArb.chain(({ objects, inFlight }) =>
        fc.tuple(
          fc.constant(objects),
          fc.shuffledSubarray(objects, { minLength: objects.length }),
          fc.constant(inFlight),
        ),
      ),
      ([objects, shuffled, inFlight]) => {
        const verdict = (list: LogObjectOutline[]) => {
          try {
            return tornToPassOver(list, inFlight)
              .map((o) => o.key)
              .sort();
          } catch (err) {
            return (err as Error).message;
          }
        };
        assert.deepEqual(verdict(shuffled), verdict(objects));
      },
    ),
    { numRuns: 300 },
  );
});

test("property: a stop tearing only PUTs in flight is always read; damage to an older object never is", () => {
  fc.assert(
    fc.property(
      fc.integer({ min: 1, max: 40 }),
      fc.integer({ min: 1, max: 6 }),
      fc.array(fc.boolean(), { minLength: 6, maxLength: 6 }),
      fc.nat(),
      (written, inFlight, tearFlags, pick) => {
        // The writer had PUTs numbered [written - inFlight, written) in flight at the stop.
        const inFlightFrom = Math.max(0, written - inFlight);
        const objects = Array.from({ length: written }, (_, n) =>
          object(n, n >= inFlightFrom && (tearFlags[n - inFlightFrom] ?? false)),
        );
        const torn = objects.filter((o) => o.damage !== undefined);
        assert.deepEqual(tornToPassOver(objects, inFlight), torn);
        if (inFlightFrom === 0) return;
        const older = pick % inFlightFrom;
        objects[older] = object(older, true);
        assert.throws(() => tornToPassOver(objects, inFlight), LogDamageError);
      },
    ),
    { numRuns: 500 },
  );
});

test("a gap names the stream, the missing record and the star's log", () => {
  const err = gapDamage("s1", "stream-9", 42n);
  assert.ok(err instanceof LogDamageError);
  assert.deepEqual([err.objectKey, err.gap], [undefined, { streamId: "stream-9", seqNum: 42n }]);
  assert.match(err.message, /stream stream-9 has no record 42 .*star s1's log objects/);
});
