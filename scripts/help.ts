// --help for the scripts and benches that package.json runs: the help is the file's opening
// comment, so it says what the file's own description says and nothing that can drift from it.
import { readFileSync } from "node:fs";
import { relative } from "node:path";

/** The opening `//` comment of a file, without the slashes. */
export function openingComment(text: string): string {
  const lines: string[] = [];
  for (const line of text.split("\n")) {
    if (!line.startsWith("//")) break;
    lines.push(line.replace(/^\/\/ ?/, ""));
  }
  return lines.join("\n");
}

/** With --help or -h among the arguments: prints `file`'s opening comment and exits 0. */
export function exitOnHelp(file: string): void {
  const args = process.argv.slice(2);
  if (!args.includes("--help") && !args.includes("-h")) return;
  const usage = `Usage: node ${relative(process.cwd(), file)}`;
  process.stdout.write(`${usage}\n\n${openingComment(readFileSync(file, "utf8"))}\n`);
  process.exit(0);
}
