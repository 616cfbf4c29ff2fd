// With `npm test -- --cpu` (scripts/test.ts), every Node process of the run loads this first
// (NODE_OPTIONS=--import): at exit it appends one line to $NOVA_CPU_LOG, tab-separated: its pid,
// its parent's, the CPU seconds it spent itself and those of the children it reaped (Linux's
// /proc/self/stat), and its script with arguments. scripts/cpu-report.ts sums the lines.
// Plain JavaScript: npm, and what it runs, may be on a Node without TypeScript support.
import { appendFileSync, readFileSync } from "node:fs";

const log = process.env.NOVA_CPU_LOG;
// Clock ticks per second: 100 on every Linux Node runs on.
const TICKS = 100;

if (log) {
  process.on("exit", () => {
    try {
      const stat = readFileSync("/proc/self/stat", "utf8");
      // The fields after the command's closing parenthesis, from the state (field 3) on.
      const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      const own = (Number(f[11]) + Number(f[12])) / TICKS;
      const children = (Number(f[13]) + Number(f[14])) / TICKS;
      const script = process.argv
        .slice(1)
        .join(" ")
        .replaceAll(/[\t\n]/g, " ");
      appendFileSync(log, `${process.pid}\t${f[1]}\t${own}\t${children}\t${script}\n`);
    } catch {
      // No /proc (not Linux): nothing to report.
    }
  });
}
