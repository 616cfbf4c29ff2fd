// Several test files in one process (scripts/test.ts writes an entry, `entrySource`). Each
// file's tests become one suite named by its absolute path, as node:test names a file it runs in
// a process of its own, so its top-level hooks (`before`, `after`) stay its own; the files share
// the modules they load and the code V8 has compiled.
import { describe } from "node:test";
import { pathToFileURL } from "node:url";

/** Each of `files` (absolute paths) as a suite of its own, in order. */
export function importEach(files: readonly string[]): void {
  for (const file of files) describe(file, () => import(pathToFileURL(file).href));
}

/** The source of an entry module that runs `files` (absolute paths) in one process. */
export function entrySource(files: readonly string[]): string {
  return `import { importEach } from ${JSON.stringify(import.meta.url)};\nimportEach(${JSON.stringify(files)});\n`;
}
