// S2's own end-to-end suite, S2-lite profile, against `npm start`'s entry: the test files of S2's
// TypeScript SDK at a pinned commit (vendor/s2-sdk-typescript), unchanged, run by vitest with
// test/s2/e2e/vitest.config.ts, as docs/s2-compat.md describes. Every test passes but three,
// which S2 passes and nova's specification refuses (uncapped timestamps with an age retention;
// docs/s2-compat.md, "Where S2 and nova differ"): those are left out by name, and the suite's
// own skips stay skipped.
//
// The profile runs in two parts, each its own test file and gateway: the producer's file, whose
// appends go one at a time over the SDK's fetch transport and are resent 5 s after they were
// queued, runs alone on an unloaded machine (SERIAL in scripts/test.ts); every other file beside
// the rest of `npm test`.
import assert from "node:assert/strict";
import { http } from "../harness/http.ts";
import { runSuite } from "../harness/vitest-suite.ts";

/** What nova's specification refuses and S2 takes: these alone are not run. */
const REFUSED_BY_SPEC = [
  "Basins spec parity Create basin creates with full config",
  "Basins spec parity Get basin config returns all configured fields",
  "Streams spec parity Create stream creates with full config",
];

/** The profile's tests at the pinned commit (205), and those the suite skips itself (5). */
export const PARTS = {
  producer: { files: ["producer.e2e"], tests: 4, skippedBySuite: 0, refused: [] },
  rest: {
    files: ["--exclude", "**/producer.e2e.test.ts"],
    tests: 201,
    skippedBySuite: 5,
    refused: REFUSED_BY_SPEC,
  },
};

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

export async function runProfilePart(
  t: { after(fn: () => Promise<void>): void },
  part: keyof typeof PARTS,
): Promise<void> {
  const { files, tests, skippedBySuite, refused } = PARTS[part];
  // S2 names a basin with 8 to 48 characters; a short pid alone would make it too short.
  const basin = `e2e-suite-${process.pid}`;
  const result = await runSuite(t, {
    prefix: "nova-s2-suite-",
    config: "test/s2/e2e/vitest.config.ts",
    args: [...files, `--testNamePattern=^(?!(${REFUSED_BY_SPEC.map(escapeRegExp).join("|")})$).*$`],
    env: (url) => ({
      S2_LITE: "1",
      S2_ACCESS_TOKEN: "any",
      S2_BASIN: basin,
      S2_ACCOUNT_ENDPOINT: url,
      S2_BASIN_ENDPOINT: url,
    }),
    // Made through S2's API, as S2's own CI makes it: a basin as S2 has it (docs/s2-compat.md).
    prepare: async (url) => {
      const created = await http(url, "POST", "/v1/basins", { basin });
      assert.equal(created.status, 201, created.text);
    },
    timeoutMs: 200_000,
  });
  assert.deepEqual(result.failures, []);
  assert.equal(result.numTotalTests, tests);
  const { notRun } = result;
  for (const name of refused) assert.ok(notRun.includes(name), `${name} ran`);
  assert.equal(notRun.length, refused.length + skippedBySuite, notRun.join("\n"));
  assert.equal(result.numPassedTests, tests - notRun.length);
}
