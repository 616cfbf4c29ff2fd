// The Durable Streams conformance suite (@durable-streams/server-conformance-tests, pinned in
// package.json), unchanged, against `npm start`'s entry with CORS on (the suite checks a
// preflight), run by vitest (test/ds/conformance/). Its subscription tests are off, as the suite
// has them by default. Every other test must pass.
import assert from "node:assert/strict";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { embeddedGateway } from "../harness/gateway.ts";
import { type RunningProcess, startProcess } from "../harness/process.ts";

const root = join(import.meta.dirname, "..", "..");
/** The gateway's long-poll wait, and the one the suite is told (its tests wait a second more). */
const LONG_POLL_MS = 1000;
const SUITE_LONG_POLL_MS = 3000;

/** The suite's tests at the pinned version, and its own skips (the subscription tests). */
const SUITE_TESTS = 338;
const SKIPPED_BY_SUITE = 6;

interface VitestReport {
  numTotalTests: number;
  testResults: {
    assertionResults: { fullName: string; status: string; failureMessages: string[] }[];
  }[];
}

test("the Durable Streams conformance suite passes against the gateway", async (t) => {
  // One hook, in this order: a directory removed while the star still writes into it fails
  // the removal, and the hooks after a failed one do not run.
  const dir = await mkdtemp(join(tmpdir(), "nova-ds-suite-"));
  let gateway: RunningProcess | undefined;
  let suite: RunningProcess | undefined;
  t.after(async () => {
    await suite?.kill("SIGKILL");
    await gateway?.kill("SIGTERM");
    await rm(dir, { recursive: true, force: true });
  });
  const started = await embeddedGateway(dir, [
    ...["--ds-long-poll-ms", String(LONG_POLL_MS)],
    ...["--cors-origins", "https://example.com"],
  ]);
  gateway = started.proc;
  const { url } = started;

  const report = join(dir, "report.json");
  suite = await startProcess({
    command: process.execPath,
    args: [
      join(root, "node_modules", "vitest", "vitest.mjs"),
      ...["run", "--config", join(root, "test", "ds", "conformance", "vitest.config.ts")],
      ...["--reporter=default", "--reporter=json", `--outputFile.json=${report}`],
    ],
    env: {
      DS_BASE_URL: `${url}/ds`,
      DS_LONG_POLL_MS: String(SUITE_LONG_POLL_MS),
      NO_COLOR: "1",
    },
    readyLine: /RUN\s+v\d/,
    timeoutMs: 60_000,
  });
  // About 60 s alone, 100 s beside the other files on 2 cores.
  await suite.waitForExit(240_000);

  const result = JSON.parse(await readFile(report, "utf8")) as VitestReport;
  const tests = result.testResults.flatMap((file) => file.assertionResults);
  const failed = tests.filter((r) => r.status === "failed");
  assert.deepEqual(
    failed.map((r) => `${r.fullName}: ${r.failureMessages.join("; ").slice(0, 500)}`),
    [],
  );
  assert.equal(result.numTotalTests, SUITE_TESTS);
  const notRun = tests.filter((r) => r.status !== "passed").map((r) => r.fullName);
  assert.equal(notRun.length, SKIPPED_BY_SUITE, notRun.join("\n"));
});
