// `npm test`'s test run (and `test:unit`, `test:integration`). The independent files run
// several processes at a time (--concurrency, default 4), a few files to a process
// (scripts/file-bundle.ts: each process takes files of about --bundle-ms of the last run's times
// together, default 60000; 0 gives each file a process of its own), the longest processes
// first; then the files that load the machine on purpose (SERIAL below), each in its own
// process, one at a time, so neither group slows the other's deadlines. One spec-reporter output
// for both groups, the 10 slowest files, and one closing summary (`ℹ tests N`, `ℹ pass N`,
// `ℹ fail N`, ...) over every file; exit 1 when a test failed. Every file's wall time (from its
// first test to its last, in a shared process) is kept in
// node_modules/.cache/nova-test-times.tsv ("ms<TAB>file" lines).
// Arguments: test files, or folders whose `**/*.test.ts` files run (default: src and test),
// `fixtures` folders left out.
// --cpu: after the run, the CPU its processes spent, by kind and by test file
// (scripts/cpu-report.ts; Linux); the run is bound by CPU, not by waiting (docs/development.md).
import "./help-first.ts";
import {
  globSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { join, relative, resolve } from "node:path";
import { run } from "node:test";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { cpuReport, parseCpuLines } from "./cpu-report.ts";
import { entrySource } from "./file-bundle.ts";
import { BUNDLES_DIR_PREFIX, packFiles } from "./test-bundles.ts";
import reporter, { fileDuration, type TestEvent } from "./test-reporter.ts";

const root = join(import.meta.dirname, "..");

/** Files that load the machine on purpose: run alone, after the others. */
const SERIAL = [
  // memory a process gives back after a burst, read from its /metrics and /proc
  "test/gateway/memory.test.ts",
  "test/gateway/slow-consumer.test.ts",
  // throughput caps: appends held for a time measured on the star's clock
  "test/gateway/throughput.test.ts",
  "test/star/throughput.test.ts",
  // a fleet losing a star under continuous appends: the takeover's replay is object-store
  // requests, whose latency on a loaded machine is what the test's deadline measures
  "test/star/failover.test.ts",
  // S2's own suite, its producer's file: the SDK's fetch transport sends one append at a time
  // and times each out 5 s after it was queued, so a producer's ~200 conditioned batches need an
  // unloaded machine's ~10 ms appends, or a late batch is resent and misses its match_seq_num
  "test/s2/e2e-producer.test.ts",
];

const { values, positionals } = parseArgs({
  options: {
    concurrency: { type: "string", default: "4" },
    "bundle-ms": { type: "string", default: "60000" },
    cpu: { type: "boolean", default: false },
  },
  allowPositionals: true,
});
const concurrency = Number(values.concurrency);
if (!Number.isSafeInteger(concurrency) || concurrency < 1) {
  process.stderr.write(`--concurrency: expected an integer >= 1, got ${values.concurrency}\n`);
  process.exit(2);
}
const bundleMs = Number(values["bundle-ms"]);
if (!Number.isSafeInteger(bundleMs) || bundleMs < 0) {
  process.stderr.write(`--bundle-ms: expected an integer >= 0, got ${values["bundle-ms"]}\n`);
  process.exit(2);
}

function testFiles(paths: string[]): string[] {
  const files = paths.flatMap((path) =>
    statSync(resolve(root, path)).isDirectory()
      ? globSync(`${relative(root, resolve(root, path))}/**/*.test.ts`, {
          cwd: root,
          // Test files that tests of the runner run, each on purpose, never a folder's.
          exclude: (file) => file === "fixtures",
        })
      : [relative(root, resolve(root, path))],
  );
  return [...new Set(files)].sort();
}

const cache = join(root, "node_modules", ".cache");
// Every process of the run (test files, stars, gateways: some hundreds) loads the same modules:
// V8's compile cache lets each one after the first skip compiling them.
process.env.NODE_COMPILE_CACHE ??= join(cache, "nova-compile");

const cpuLog = join(cache, "nova-test-cpu.tsv");
if (values.cpu) {
  // Every Node process of the run, however deep, logs its CPU at exit (scripts/cpu-at-exit.mjs).
  mkdirSync(cache, { recursive: true });
  writeFileSync(cpuLog, "");
  process.env.NOVA_CPU_LOG = cpuLog;
  const hook = pathToFileURL(join(root, "scripts", "cpu-at-exit.mjs")).href;
  process.env.NODE_OPTIONS = `${process.env.NODE_OPTIONS ?? ""} --import ${hook}`.trim();
}

const timesPath = join(cache, "nova-test-times.tsv");
function lastTimes(): Map<string, number> {
  try {
    const lines = readFileSync(timesPath, "utf8")
      .split("\n")
      .filter((line) => line !== "");
    return new Map(
      lines.map((line) => line.split("\t")).map(([ms, file]) => [file ?? "", Number(ms)]),
    );
  } catch {
    return new Map();
  }
}
const times = lastTimes();

const files = testFiles(positionals.length > 0 ? positionals : ["src", "test"]);
const serial = files.filter((file) => SERIAL.includes(file));
// Untimed (a fresh clone): an integration file (test/, real processes) counts as long, a unit
// file (src/) as short.
const expectedMs = (file: string) => times.get(file) ?? (file.startsWith("test/") ? 20_000 : 250);
// The others share processes, a few files each (scripts/file-bundle.ts): a process per file
// would load the same modules and compile the same code again.
const groups = packFiles(
  files.filter((file) => !SERIAL.includes(file)),
  expectedMs,
  bundleMs,
);
mkdirSync(cache, { recursive: true });
const bundleDir = mkdtempSync(join(cache, BUNDLES_DIR_PREFIX));
process.on("exit", () => rmSync(bundleDir, { recursive: true, force: true }));
/** Each shared process's entry, by the files it runs (for --cpu's report). */
const bundleNames = new Map<string, string>();
/** The path node:test runs for `group`: the file itself, or an entry that imports each. */
function groupPath(group: string[], index: number): string {
  if (group.length === 1) return join(root, group[0] as string);
  const entry = join(bundleDir, `${index + 1}-of-${groups.length}.mjs`);
  bundleNames.set(
    entry,
    group.length > 3
      ? `${group.slice(0, 3).join(" ")} and ${group.length - 3} more`
      : group.join(" "),
  );
  const paths = group.map((file) => join(root, file));
  writeFileSync(entry, entrySource(paths));
  return entry;
}
const parallel = groups.map(groupPath);

/**
 * A test that runs this long has hung: it is cancelled, naming it, and its process ends once its
 * tests have (forceExit, or a handle the hung test left would keep it), rather than hold the run
 * until CI kills it. The slowest file takes about 95 s.
 */
const TEST_TIMEOUT_MS = 300_000;

const COUNTS = ["tests", "suites", "pass", "fail", "cancelled", "skipped", "todo"] as const;
const COUNT_LINE = /^(tests|suites|pass|fail|cancelled|skipped|todo|duration_ms) [\d.]+$/;

/** Both groups' events as one run: each group's closing counts held back and summed at the end. */
async function* events(): AsyncGenerator<TestEvent> {
  const started = performance.now();
  const totals = new Map<string, number>(COUNTS.map((name) => [name, 0]));
  /** The files whose results came: each ends with a nesting-0 result named by its path. */
  const reported = new Set<string>();
  for (const [group, at] of [
    [parallel, concurrency],
    [serial.map((file) => join(root, file)), 1],
  ] as const) {
    if (group.length === 0) continue;
    const stream = run({
      files: group,
      concurrency: at,
      cwd: root,
      timeout: TEST_TIMEOUT_MS,
      forceExit: true,
      execArgv: ["--import", pathToFileURL(join(root, "scripts", "blocking-stdout.mjs")).href],
    });
    for await (const event of stream as AsyncIterable<TestEvent>) {
      const timed = fileDuration(event);
      if (timed) {
        times.set(relative(root, timed[0]), timed[1]);
        reported.add(relative(root, timed[0]));
      }
      const runLevel = event.data?.file === undefined;
      const message = event.data?.message ?? "";
      if (runLevel && event.type === "test:diagnostic" && COUNT_LINE.test(message)) {
        const [name = "", value] = message.split(" ");
        if (totals.has(name)) totals.set(name, (totals.get(name) ?? 0) + Number(value));
        continue;
      }
      // The run's own plan and summary would describe one group only.
      if (runLevel && (event.type === "test:plan" || event.type === "test:summary")) continue;
      yield event;
    }
  }
  // A process that ended before reporting a file's result must not pass for it.
  const lost = files.filter((file) => !reported.has(file));
  if (lost.length > 0) {
    totals.set("fail", (totals.get("fail") ?? 0) + lost.length);
    yield {
      type: "test:stdout",
      data: {
        message: `\n✖ no result came for ${lost.length} test file(s): their process ended first\n${lost.map((file) => `  ${file}\n`).join("")}\n`,
      },
    };
  }
  if ((totals.get("fail") ?? 0) > 0 || (totals.get("cancelled") ?? 0) > 0) process.exitCode = 1;
  const rows = [...times].sort((a, b) => b[1] - a[1]);
  writeFileSync(timesPath, rows.map(([file, ms]) => `${Math.round(ms)}\t${file}\n`).join(""));
  totals.set("duration_ms", performance.now() - started);
  for (const [name, value] of totals) {
    yield { type: "test:diagnostic", data: { nesting: 0, message: `${name} ${value}` } };
  }
}

if (files.length === 0) {
  process.stderr.write(`no test files in ${positionals.join(" ")}\n`);
  process.exit(2);
}
for await (const text of reporter(events())) process.stdout.write(text);
if (values.cpu)
  process.stdout.write(cpuReport(parseCpuLines(readFileSync(cpuLog, "utf8")), root, bundleNames));
