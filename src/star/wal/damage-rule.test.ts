import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import { type LogObject, tornToSkip } from "./log-objects.ts";

const object = (n: number, torn = false): LogObject => ({
  key: `log/star/${n}`,
  number: BigInt(n),
  entries: torn ? undefined : [],
  ...(torn ? { damage: "log object: 0 bytes, shorter than header and trailer" } : {}),
});

test("the newest objects, those whose PUT may have been in flight, may be torn: they are skipped", () => {
  const objects = [object(3), object(4), object(5, true)];
  assert.deepEqual(tornToSkip(objects, 1), [objects[2]]);
  assert.deepEqual(tornToSkip([object(4, true), object(5)], 2), [object(4, true)]);
  assert.deepEqual(tornToSkip([object(3), object(4)], 1), []);
});

test("a torn object older than the PUTs in flight is damage", () => {
  assert.throws(
    () => tornToSkip([object(3, true), object(4), object(5)], 2),
    /log object log\/star\/3 is damaged \(log object: 0 bytes.*not among the newest/,
  );
});

test("skipped are exactly the torn objects, when all are among the newest `inFlight`", () => {
  fc.assert(
    fc.property(
      fc.uniqueArray(fc.nat(50), { minLength: 1, maxLength: 20 }),
      fc.array(fc.boolean(), { minLength: 20, maxLength: 20 }),
      fc.integer({ min: 1, max: 4 }),
      (numbers, tornFlags, inFlight) => {
        const objects = numbers.sort((a, b) => a - b).map((n, i) => object(n, tornFlags[i]));
        const newest = Math.max(...numbers);
        const torn = objects.filter((o) => o.entries === undefined);
        const allowed = torn.every((o) => Number(o.number) > newest - inFlight);
        if (allowed) assert.deepEqual(tornToSkip(objects, inFlight), torn);
        else assert.throws(() => tornToSkip(objects, inFlight), /is damaged/);
      },
    ),
  );
});
