// The Durable Streams conformance suite, one file, its tests in order as its own runner runs them.
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    root: import.meta.dirname,
    include: ["suite.vitest.ts"],
    pool: "forks",
    fileParallelism: false,
  },
});
