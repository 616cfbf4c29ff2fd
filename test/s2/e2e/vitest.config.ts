// S2's end-to-end suite (vendor/s2-sdk-typescript, S2's SDK at a pinned commit) run the way S2's
// own CI runs its S2-lite profile: the e2e files but the account-basin, access-token and metrics
// ones (and Deno's), one file at a time, the SDK taken from its sources as S2's config does.
import { join } from "node:path";
import { defineConfig } from "vitest/config";

const sdk = join(import.meta.dirname, "..", "..", "..", "vendor", "s2-sdk-typescript");

export default defineConfig({
  resolve: {
    alias: { "@s2-dev/streamstore": join(sdk, "packages/streamstore/src/index.ts") },
  },
  test: {
    root: sdk,
    include: ["packages/streamstore/src/tests/*.e2e.test.ts"],
    exclude: ["**/account-basin*", "**/accessTokens*", "**/metrics*", "**/deno.e2e.test.ts"],
    pool: "forks",
    fileParallelism: false,
    // One process for every file: each file's own would load vitest and the SDK again (about a
    // fifth of the run's CPU). The files share no state: each makes its own streams and client.
    isolate: false,
    // Vitest's defaults (5 s a test, 10 s a hook) assume an idle machine; npm test runs the
    // suite beside other files on 2 cores. Tests that set their own keep them.
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
