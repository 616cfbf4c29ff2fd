// Where a page assembled from chunks and Read calls ends when a Read continuing it fails. A Read
// takes its first record whatever its size and looks at the next to see whether it fits; one
// Read of the whole page stops at that first record when it does not fit, and looks no further.
// So a continuing Read can fail on what the one Read never looks at (a damaged chunk past the
// page's end), and the page must then end where the one Read's does, not fail.
import { contentBytes } from "../../contract/codec/index.ts";
import type { PageRule } from "../../contract/page-rule.ts";
import type { StarRead } from "./page-read.ts";

/**
 * After a Read continuing the page at `at` failed: true when the record at `at` does not belong
 * on the page (so the page ends before it, as one Read's does), false when the failure stands.
 * Asks the star for that one record (a Read of one looks at nothing past it); its own failure is
 * thrown, as the one Read would meet it too. `fromTs`: records stamped before it are skipped.
 */
export async function pageEndsAt(
  read: StarRead,
  at: bigint,
  limits: PageRule,
  fromTs?: bigint,
): Promise<boolean> {
  if (limits.records === 0) return false;
  const [r] = (await read({ seq_num: at.toString() }, 1, limits.remaining().bytes)).records;
  if (r === undefined || BigInt(r.seq_num) !== at) return false;
  const ts = BigInt(r.timestamp_ms);
  if (fromTs !== undefined && ts < fromTs) return false;
  return !limits.admits(ts, contentBytes(r));
}
