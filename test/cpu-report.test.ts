import assert from "node:assert/strict";
import { test } from "node:test";
import { cpuReport, parseCpuLines } from "../scripts/cpu-report.ts";

const ROOT = "/repo";
const line = (pid: number, ppid: number, own: number, children: number, script: string) =>
  `${pid}\t${ppid}\t${own}\t${children}\t${script}\n`;

test("CPU lines parse back, a script with spaces and tabs whole", () => {
  const text = line(7, 1, 1.5, 0.25, "/repo/src/main.ts --port 0") + line(8, 7, 0, 0, "a\tb");
  assert.deepEqual(parseCpuLines(text), [
    { pid: 7, ppid: 1, own: 1.5, children: 0.25, script: "/repo/src/main.ts --port 0" },
    { pid: 8, ppid: 7, own: 0, children: 0, script: "a\tb" },
  ]);
});

test("the report sums each kind's own CPU, and what no logged process claims", () => {
  const text =
    line(10, 1, 2, 9, "/repo/test/a.test.ts") +
    line(11, 10, 3, 0, "/repo/src/star/main.ts --listen 127.0.0.1:0") +
    line(12, 10, 4, 0, "/repo/src/main.ts --stars x") +
    line(20, 1, 1, 0.5, "/repo/test/b.test.ts") +
    line(30, 1, 0.1, 13.5, "/repo/scripts/test.ts");
  const report = cpuReport(parseCpuLines(text), ROOT);
  assert.match(report, /everything they started: 12\.5 s/);
  assert.match(report, /3\.0 s {2}test files \(2 processes, their own\)/);
  assert.match(report, /3\.0 s {2}stars \(1 processes/);
  assert.match(report, /4\.0 s {2}gateways \(1 processes/);
  // 12.5 in all; 3 + 3 + 4 logged by the test files, the stars and the gateways, 0.1 by the runner.
  assert.match(report, /2\.4 s {2}not Node or not logged/);
  const files = report.slice(report.indexOf("cost the most"));
  assert.ok(files.indexOf("test/a.test.ts") < files.indexOf("test/b.test.ts"));
  assert.match(files, /11\.0 s {2}test\/a\.test\.ts/);
});

test("a shared process's entry is named by the files it ran", () => {
  const entry = "/repo/node_modules/.cache/nova-test-bundles-x/1-of-2.mjs";
  const text = line(10, 1, 2, 1, entry) + line(11, 10, 1, 0, "/repo/src/main.ts --port 0");
  const report = cpuReport(
    parseCpuLines(text),
    ROOT,
    new Map([[entry, "test/a.test.ts test/b.test.ts"]]),
  );
  assert.match(report, /2\.0 s {2}test files \(1 processes/);
  assert.match(report, /3\.0 s {2}test\/a\.test\.ts test\/b\.test\.ts/);
});
