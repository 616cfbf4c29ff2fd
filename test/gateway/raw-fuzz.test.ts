// fast-check over raw sockets (test/fuzz/): pipelined requests of every kind, sessions included,
// with well-framed bad ones and a last one broken at the byte level. Every request is answered
// (or an answer said `connection: close`), nothing is a 5xx, every 4xx has the contract's body,
// the gateway closes a half-closed connection, and a stream's tail moves only by acked appends.
// A failure prints fast-check's seed and path: `RAW_FUZZ_SEED=<seed> RAW_FUZZ_PATH=<path>`
// replays it. `npm run fuzz` runs the same check for longer.
import { after, before, test } from "node:test";
import fc from "fast-check";
import { rawScript } from "../fuzz/raw-requests.ts";
import { RawFuzzTarget } from "../fuzz/raw-target.ts";
import type { Gateway } from "../harness/gateway.ts";
import { type Stack, startStack } from "../harness/stack.ts";

const RUNS = Number(process.env.RAW_FUZZ_RUNS ?? 1500);

let stack: Stack<Gateway>;
let target: RawFuzzTarget;

before(async () => {
  stack = await startStack("nova-raw-fuzz-", {
    gateway: {
      bodyLimit: 64 * 1024,
      headersTimeoutMs: 2_000,
      bodyTimeouts: { idleMs: 2_000, totalMs: 10_000 },
    },
  });
  target = new RawFuzzTarget(stack.gw.base, `raw-fuzz-${process.pid}`);
  await target.open();
});
after(() => stack?.close());

test("raw requests, framed, broken and pipelined, are each answered in the contract", async () => {
  await fc.assert(
    fc.asyncProperty(rawScript(), async (script) => {
      await target.run(script);
    }),
    {
      numRuns: RUNS,
      ...(process.env.RAW_FUZZ_SEED ? { seed: Number(process.env.RAW_FUZZ_SEED) } : {}),
      ...(process.env.RAW_FUZZ_PATH ? { path: process.env.RAW_FUZZ_PATH } : {}),
    },
  );
});
