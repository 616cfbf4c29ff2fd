// What a process uses, read from Linux's /proc: its resident memory and its CPU time so far.
// The benches and the tests that watch memory read them the same way.
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";

let ticks: number | undefined;

/** The process's resident set size (VmRSS), bytes. */
export function rssBytes(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  return Number(/^VmRSS:\s+(\d+) kB$/m.exec(status)?.[1]) * 1024;
}

/** The process's CPU time so far (utime + stime), seconds. */
export function cpuSeconds(pid: number): number {
  // Asked before the read, so that the first call's getconf child is not in the time it reads.
  ticks ??= Number(execFileSync("getconf", ["CLK_TCK"]).toString().trim());
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  // utime and stime are fields 14 and 15 of the line, 12 and 13 after "pid (comm) ".
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) / ticks;
}
