// Node's own flags for a program, as the package.json script that runs it gives them (`npm
// start` for src/main.ts, `npm run star` for src/star/main.ts), so that tests and benches run
// the processes users run.
import { readFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";

const root = join(import.meta.dirname, "..", "..");
const scripts: Record<string, string> = JSON.parse(
  readFileSync(join(root, "package.json"), "utf8"),
).scripts;

/** The flags between `node` and `entry` in the script that runs it; none when no script does. */
export function scriptNodeFlags(entry: string): string[] {
  const file = relative(root, resolve(entry));
  for (const script of Object.values(scripts)) {
    const [program, ...words] = script.trim().split(/\s+/);
    if (program !== "node") continue;
    const at = words.findIndex((word) => !word.startsWith("--"));
    if (at >= 0 && words[at] === file) return words.slice(0, at);
  }
  return [];
}
