// `npm run fuzz -- --requests 100000 [--seed N] [--clients 4]`: the raw-socket fuzz of
// `test/gateway/raw-fuzz.test.ts`, for longer, against a gateway process (src/main.ts) and a star
// process, with the load from this process. Each client runs scripts (test/fuzz/) one at a time
// on its own streams; the first failure prints its seed, its script and what broke, and exits 1.
// Prints requests sent, connections, answers by status, and the rate.

import "./help-first.ts";
import { parseArgs } from "node:util";
import fc from "fast-check";
import type { ConnectionResult } from "../test/fuzz/raw-connection.ts";
import { type RawScript, rawScript } from "../test/fuzz/raw-requests.ts";
import { RawFuzzTarget } from "../test/fuzz/raw-target.ts";
import { startProcessStack } from "../test/harness/stack.ts";

const { values } = parseArgs({
  options: {
    requests: { type: "string", default: "10000" },
    seed: { type: "string", default: String(Date.now() % 2 ** 31) },
    clients: { type: "string", default: "4" },
  },
});
const wanted = Number(values.requests);
const seed = Number(values.seed);
const clients = Number(values.clients);

const stack = await startProcessStack("nova-fuzz-", {
  gatewayArgs: [
    "--body-limit-mb",
    "1",
    "--headers-timeout-ms",
    "2000",
    "--body-idle-ms",
    "2000",
    "--body-timeout-ms",
    "10000",
  ],
});
let sent = 0;
let connections = 0;
const statuses = new Map<string, number>();
const started = performance.now();

function count(script: RawScript, result: ConnectionResult): void {
  connections += 1;
  sent += script.framed.length + (script.broken ? 1 : 0);
  for (const a of result.answers) {
    const key = `${Math.floor(a.status / 100)}xx`;
    statuses.set(key, (statuses.get(key) ?? 0) + 1);
  }
}

async function client(n: number): Promise<void> {
  const target = new RawFuzzTarget(stack.gw.base, `fuzz-${process.pid}-${n}`);
  await target.open();
  for (let batch = 0; sent < wanted; batch++) {
    const batchSeed = seed + n * 1_000_003 + batch;
    for (const script of fc.sample(rawScript(), { seed: batchSeed, numRuns: 100 })) {
      if (sent >= wanted) return;
      try {
        count(script, await target.run(script));
      } catch (err) {
        console.error(`failed: client ${n}, fc.sample seed ${batchSeed} (run seed ${seed})`);
        console.error(JSON.stringify(script));
        throw err;
      }
    }
  }
}

let failed = false;
try {
  await Promise.all(Array.from({ length: clients }, (_, n) => client(n)));
} catch (err) {
  failed = true;
  console.error(err);
} finally {
  await stack.close();
}
const seconds = (performance.now() - started) / 1000;
console.log(
  `seed ${seed}: ${sent} requests on ${connections} connections in ${seconds.toFixed(1)} s ` +
    `(${Math.round(sent / seconds)}/s), answers ${JSON.stringify(Object.fromEntries(statuses))}` +
    (failed ? ", FAILED" : ", all as the contract says"),
);
process.exit(failed ? 1 : 0);
