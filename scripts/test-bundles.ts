// Which test files share a process in `npm test` (scripts/test.ts): no I/O.

/** The name the run's directory of entries starts with (node_modules/.cache/nova-test-bundles-*). */
export const BUNDLES_DIR_PREFIX = "nova-test-bundles-";

/**
 * `files` packed into groups of at most `capacityMs` of expected time (first fit, longest file
 * first); a file expected to take that long or longer is a group of its own. The groups come
 * longest first, so that a long one never starts last and holds up the run alone.
 */
export function packFiles(
  files: readonly string[],
  expectedMs: (file: string) => number,
  capacityMs: number,
): string[][] {
  const groups: { files: string[]; ms: number }[] = [];
  for (const file of [...files].sort((a, b) => expectedMs(b) - expectedMs(a))) {
    const ms = expectedMs(file);
    const group = groups.find((g) => g.ms + ms <= capacityMs);
    if (group) {
      group.files.push(file);
      group.ms += ms;
    } else {
      groups.push({ files: [file], ms });
    }
  }
  return groups.sort((a, b) => b.ms - a.ms).map((g) => g.files);
}
