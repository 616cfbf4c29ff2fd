// node --test's spec reporter, plus the slowest test files (wall time of each file: its process,
// start to exit, or its suite in a shared process) printed just before the run's closing summary, so the summary lines
// ("ℹ tests N", "ℹ pass N", ...) stay the last thing a CI log reader sees.
import { isAbsolute, relative } from "node:path";
import { Readable } from "node:stream";
import { spec } from "node:test/reporters";

const SHOWN = 10;

export interface TestEvent {
  type: string;
  data?: {
    file?: string;
    name?: string;
    nesting?: number;
    message?: string;
    details?: { duration_ms?: number };
  };
}

/** A test file's wall time, from the event that ends it: [its absolute path, ms]. */
export function fileDuration(event: TestEvent): [string, number] | undefined {
  const data = event.data;
  // A file run in a process of its own is a nesting-0 test named by its path, and so is each
  // file of a shared process (scripts/file-bundle.ts); that process's entry is not a test file.
  if (
    event.type === "test:complete" &&
    data?.nesting === 0 &&
    data.name !== undefined &&
    isAbsolute(data.name) &&
    data.name.endsWith(".test.ts") &&
    data.details?.duration_ms !== undefined
  ) {
    return [data.name, data.details.duration_ms];
  }
  return undefined;
}

function slowest(fileMs: Map<string, number>): string {
  const rows = [...fileMs].sort((a, b) => b[1] - a[1]);
  if (rows.length === 0) return "";
  const lines = rows
    .slice(0, SHOWN)
    .map(([file, ms]) => `  ${(ms / 1000).toFixed(1).padStart(6)} s  ${file}`);
  return `\nslowest test files (of ${rows.length}):\n${lines.join("\n")}\n\n`;
}

/** The events as they come, with the slowest files as one stdout event before the summary. */
async function* withSlowest(source: AsyncIterable<TestEvent>): AsyncGenerator<TestEvent> {
  const fileMs = new Map<string, number>();
  let printed = false;
  for await (const event of source) {
    const timed = fileDuration(event);
    if (timed) fileMs.set(relative(process.cwd(), timed[0]), timed[1]);
    if (
      !printed &&
      event.type === "test:diagnostic" &&
      event.data?.file === undefined &&
      event.data?.message?.startsWith("tests ")
    ) {
      printed = true;
      yield { type: "test:stdout", data: { message: slowest(fileMs) } };
    }
    yield event;
  }
}

export default async function* reporter(source: AsyncIterable<TestEvent>): AsyncGenerator<string> {
  yield* Readable.from(withSlowest(source)).pipe(spec());
}
