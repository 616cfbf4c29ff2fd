// Suites written by others (S2's end-to-end suite, the Durable Streams conformance suite), run
// by vitest against a gateway with its embedded star: both as processes, stopped and their
// directory removed in one hook, in that order (a directory removed while the star still writes
// into it fails the removal, and the hooks after a failed one do not run); vitest's JSON report
// read back.
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { embeddedGateway } from "./gateway-process.ts";
import { type RunningProcess, startProcess } from "./process.ts";

const root = join(import.meta.dirname, "..", "..");

export interface SuiteOptions {
  /** The temp directory's prefix. */
  prefix: string;
  /** The vitest config file, from the repository's root. */
  config: string;
  gatewayFlags?: string[];
  /** vitest's arguments after the config and reporters (a --testNamePattern). */
  args?: string[];
  /** The suite's environment, given the gateway's URL. */
  env(url: string): Record<string, string>;
  /** Runs against the gateway before the suite starts. */
  prepare?(url: string): Promise<void>;
  /** How long vitest may run. */
  timeoutMs: number;
}

export interface SuiteResult {
  numTotalTests: number;
  numPassedTests: number;
  /** Each failed test with the start of its failure messages. */
  failures: string[];
  /** The tests that did not pass: failed or skipped. */
  notRun: string[];
}

interface VitestReport {
  numTotalTests: number;
  numPassedTests: number;
  testResults: {
    assertionResults: { fullName: string; status: string; failureMessages: string[] }[];
  }[];
}

export async function runSuite(
  t: { after(fn: () => Promise<void>): void },
  opts: SuiteOptions,
): Promise<SuiteResult> {
  const dir = await mkdtemp(join(tmpdir(), opts.prefix));
  let gateway: RunningProcess | undefined;
  let suite: RunningProcess | undefined;
  t.after(async () => {
    await suite?.kill("SIGKILL");
    await gateway?.kill("SIGTERM");
    await rm(dir, { recursive: true, force: true });
  });
  const started = await embeddedGateway(dir, opts.gatewayFlags);
  gateway = started.proc;
  await opts.prepare?.(started.url);

  const report = join(dir, "report.json");
  suite = await startProcess({
    command: process.execPath,
    args: [
      join(root, "node_modules", "vitest", "vitest.mjs"),
      ...["run", "--config", join(root, opts.config)],
      ...["--reporter=default", "--reporter=json", `--outputFile.json=${report}`],
      ...(opts.args ?? []),
    ],
    env: { ...opts.env(started.url), NO_COLOR: "1" },
    readyLine: /RUN\s+v\d/,
    timeoutMs: 60_000,
  });
  await suite.waitForExit(opts.timeoutMs);

  const result = JSON.parse(await readFile(report, "utf8")) as VitestReport;
  const tests = result.testResults.flatMap((file) => file.assertionResults);
  return {
    numTotalTests: result.numTotalTests,
    numPassedTests: result.numPassedTests,
    failures: tests
      .filter((r) => r.status === "failed")
      .map((r) => `${r.fullName}: ${r.failureMessages.join("; ").slice(0, 500)}`),
    notRun: tests.filter((r) => r.status !== "passed").map((r) => r.fullName),
  };
}
