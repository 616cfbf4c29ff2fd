// Node's own flags for a gateway process a bench starts: `npm start`'s, as every process the
// harness starts gets its script's (test/harness/node-flags.ts); BENCH_GATEWAY_NODE_ARGS
// replaces them.
import { scriptNodeFlags } from "../test/harness/node-flags.ts";

export const GATEWAY_NODE_ARGS: string[] =
  process.env.BENCH_GATEWAY_NODE_ARGS === undefined
    ? scriptNodeFlags("src/main.ts")
    : process.env.BENCH_GATEWAY_NODE_ARGS.split(" ").filter(Boolean);
