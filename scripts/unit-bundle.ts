// The unit test files (`src/**/*.test.ts`: pure code and fakes, no processes) in one process:
// scripts/test.ts runs this as one file of its pool, with the files' paths in NOVA_UNIT_FILES (a
// JSON list). A process each would cost about 0.3 s of CPU apiece to load the same modules.
import { pathToFileURL } from "node:url";

const files = JSON.parse(process.env.NOVA_UNIT_FILES ?? "[]") as string[];
for (const file of files) await import(pathToFileURL(file).href);
