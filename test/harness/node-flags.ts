// package.json's scripts read as commands, and Node's own flags for a program as the script that
// runs it gives them (`npm start` for src/main.ts, `npm run star` for src/star/main.ts), so that
// tests and benches run the processes users run.
import { readFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";

const root = join(import.meta.dirname, "..", "..");

/** package.json's scripts, by name. */
export const scripts: Record<string, string> = JSON.parse(
  readFileSync(join(root, "package.json"), "utf8"),
).scripts;

/** A script's commands (split on &&), each as its words, quotes taken off. */
export function commands(script: string): string[][] {
  return script
    .split("&&")
    .map((command) =>
      (command.trim().match(/"[^"]*"|\S+/g) ?? []).map((word) => word.replace(/^"(.*)"$/, "$1")),
    );
}

/** The file a `node` command runs, after Node's own flags (`--max-semi-space-size=16`). */
export function nodeFile(words: string[]): string | undefined {
  const [program, ...args] = words;
  if (program !== "node" || args[0] === "--test") return undefined;
  return args.find((word) => !word.startsWith("--"));
}

/** The flags between `node` and `entry` in the script that runs it; none when no script does. */
export function scriptNodeFlags(entry: string): string[] {
  const file = relative(root, resolve(entry));
  for (const words of Object.values(scripts).flatMap(commands)) {
    if (nodeFile(words) === file) return words.slice(1, words.indexOf(file));
  }
  return [];
}
