// Node's own flags for a gateway process a bench starts: `npm start`'s (package.json), so a
// bench measures the gateway as it is run; BENCH_GATEWAY_NODE_ARGS replaces them.
import { readFileSync } from "node:fs";
import { join } from "node:path";

/** The flags between `node` and the file in `npm start`'s command. */
export function startNodeFlags(): string[] {
  const pkg = JSON.parse(readFileSync(join(import.meta.dirname, "..", "package.json"), "utf8"));
  const [program, ...words] = String(pkg.scripts.start).split(/\s+/);
  if (program !== "node") throw new Error(`npm start runs ${program}, not node`);
  const file = words.findIndex((word) => !word.startsWith("--"));
  if (file < 0) throw new Error("npm start names no file to run");
  return words.slice(0, file);
}

export const GATEWAY_NODE_ARGS: string[] =
  process.env.BENCH_GATEWAY_NODE_ARGS === undefined
    ? startNodeFlags()
    : process.env.BENCH_GATEWAY_NODE_ARGS.split(" ").filter(Boolean);
