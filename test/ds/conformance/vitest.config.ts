// The Durable Streams conformance suite, one file, its tests in order as its own runner runs them.
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    root: import.meta.dirname,
    include: ["suite.vitest.ts"],
    pool: "forks",
    fileParallelism: false,
    // The suite's default 5 s per test assumes an idle machine: a property test sends some
    // hundreds of requests one after another, and npm test runs it beside other files on 2 cores.
    testTimeout: 30_000,
  },
});
