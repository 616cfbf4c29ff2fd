// The CPU report of `npm test -- --cpu`: scripts/cpu-at-exit.mjs's lines summed by kind of
// process (test files, stars, gateways, other Node programs) and the test files that cost most,
// each with the processes it started. CPU no logged process claims as its own (Chromium, HAProxy,
// nginx, processes killed with SIGKILL) counts in the test file that started it.
import { BUNDLES_DIR_PREFIX } from "./test-bundles.ts";

export interface CpuLine {
  pid: number;
  ppid: number;
  /** CPU seconds the process spent itself. */
  own: number;
  /** CPU seconds of the children it reaped, theirs included. */
  children: number;
  script: string;
}

export function parseCpuLines(text: string): CpuLine[] {
  return text
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => {
      const [pid, ppid, own, children, ...script] = line.split("\t");
      return {
        pid: Number(pid),
        ppid: Number(ppid),
        own: Number(own),
        children: Number(children),
        script: script.join("\t"),
      };
    });
}

const KINDS: [string, RegExp][] = [
  ["test files", new RegExp(`\\.test\\.ts\\b|${BUNDLES_DIR_PREFIX}`)],
  ["stars", /src\/star\/main\.ts\b/],
  ["gateways", /src\/main\.ts\b/],
];

const kindOf = (script: string): string =>
  KINDS.find(([, re]) => re.test(script.split(" ")[0] ?? ""))?.[0] ?? "other Node programs";

const seconds = (s: number): string => `${s.toFixed(1)} s`.padStart(9);

/**
 * The report for the processes of one run under `root` (paths print relative to it); `names`
 * gives a script's name where its path says little (a shared process's entry: its files).
 */
export function cpuReport(
  lines: CpuLine[],
  root: string,
  names: ReadonlyMap<string, string> = new Map(),
): string {
  const files = lines.filter((l) => kindOf(l.script) === "test files");
  const total = files.reduce((sum, l) => sum + l.own + l.children, 0);
  const byKind = new Map<string, { cpu: number; count: number }>();
  for (const l of lines) {
    const kind = kindOf(l.script);
    const k = byKind.get(kind) ?? { cpu: 0, count: 0 };
    byKind.set(kind, { cpu: k.cpu + l.own, count: k.count + 1 });
  }
  const logged = [...byKind.values()].reduce((sum, k) => sum + k.cpu, 0);
  const rows = [...byKind].sort((a, b) => b[1].cpu - a[1].cpu);
  const name = (script: string) => {
    const path = script.split(" ")[0] ?? "";
    return names.get(path) ?? path.replace(`${root}/`, "");
  };
  const top = [...files].sort((a, b) => b.own + b.children - (a.own + a.children)).slice(0, 10);
  return [
    `\nCPU of the test files and everything they started: ${seconds(total).trim()}`,
    ...rows.map(([kind, k]) => `${seconds(k.cpu)}  ${kind} (${k.count} processes, their own)`),
    `${seconds(Math.max(0, total - logged))}  not Node or not logged (Chromium, HAProxy, nginx, killed)`,
    "test files that cost the most CPU (with what they started):",
    ...top.map((l) => `${seconds(l.own + l.children)}  ${name(l.script)}`),
    "",
  ].join("\n");
}
