// The leak check of `npm run soak` (docs/operating.md, "Memory"), shortened: `npm start`'s
// entry (gateway, star and object store in one process) under the soak's mix from a separate
// load process, faster, until a few thousand records went through the hubs. Buffer memory must
// then be what the caches and pools report holding, plus a margin for sockets and requests in
// flight: a cache that keeps a 1 KiB view of a 64 KiB buffer is caught, whatever its timing.
import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { test } from "node:test";
import { embeddedGateway } from "../harness/gateway-process.ts";
import { http } from "../harness/http.ts";
import { scraped } from "../harness/metrics.ts";
import { nodeArgs } from "../harness/process.ts";
import { tempDir } from "../harness/tmp.ts";
import { waitFor } from "../harness/wait.ts";

const MiB = 1024 * 1024;
const STREAMS = 10;
const MARGIN = 32 * MiB;
/**
 * Records appended before memory is judged, each arriving on its own (100 a second, 10 ms apart;
 * a quick succession shares read buffers and would hide a leak): 64 MiB if each pinned 64 KiB.
 */
const RECORDS = 1000;

interface Reading {
  external: number;
  held: Record<string, number>;
  bound: Record<string, number>;
}

async function read(base: string): Promise<Reading> {
  const page = (await http(base, "GET", "/metrics")).text;
  const reading: Reading = {
    external: scraped(page, "nodejs_external_memory_bytes"),
    held: {},
    bound: {},
  };
  for (const line of page.split("\n")) {
    const m = /^nova_gateway_memory_(held|bound)_bytes\{part="([a-z_]+)"\} (\S+)$/.exec(line);
    if (m) reading[m[1] as "held" | "bound"][m[2] as string] = Number(m[3]);
  }
  return reading;
}

const sum = (o: Record<string, number>) => Object.values(o).reduce((a, b) => a + b, 0);

test("under the soak's mix, buffer memory is what the caches account for, and each keeps its bound", async (t) => {
  const dir = await tempDir(t);
  const { url, proc } = await embeddedGateway(dir, ["--gc-slack-mb", "16"]);
  let client: ChildProcess | undefined;
  // The load first: a gateway still under it, or swollen by a leak, is slow to drain.
  t.after(async () => {
    if (client?.exitCode === null) client.kill("SIGKILL");
    await proc.kill("SIGKILL");
  });
  const streams: string[] = [];
  for (let i = 0; i < STREAMS; i++) {
    assert.equal((await http(url, "POST", "/v1/buckets", { name: `soak-${i}` })).status, 201);
    const s = await http(url, "POST", `/v1/buckets/soak-${i}/streams`, { key: "s" });
    assert.equal(s.status, 201, s.text);
    streams.push(`/v1/buckets/soak-${i}/streams/s`);
  }
  const baseline = (await read(url)).external;

  const [command, args] = nodeArgs("bench/soak-client.ts", [url, ...streams]);
  const load = spawn(command, args, {
    stdio: ["pipe", "pipe", "inherit"],
    env: {
      ...process.env,
      SOAK_APPENDS_PER_S: "100",
      SOAK_PRODUCERS: "4",
      SOAK_RESUME_EVERY_MS: "5000",
      SOAK_REPORT_EVERY_MS: "3600000",
    },
  });
  client = load;
  let final = "";
  load.stdout.setEncoding("utf8").on("data", (s: string) => {
    final += s;
  });
  const exited = once(load, "exit");

  const appended = async () => {
    let n = 0;
    for (const stream of streams) {
      n += Number((await http(url, "GET", `${stream}/records/tail`)).json?.tail?.seq_num ?? 0);
    }
    return n;
  };
  await waitFor(async () => (await appended()) >= RECORDS, {
    timeoutMs: 180_000,
    intervalMs: 1000,
    message: `${RECORDS} records appended`,
  });
  let last: Reading | undefined;
  try {
    // Garbage from requests just served may wait for the next collection: judged once it is gone.
    await waitFor(
      async () => {
        last = await read(url);
        return last.external <= baseline + sum(last.held) + MARGIN;
      },
      { timeoutMs: 30_000, intervalMs: 250 },
    );
  } catch {
    assert.fail(
      `buffer memory ${Math.round((last?.external ?? 0) / MiB)} MiB, while the caches account for ${Math.round(sum(last?.held ?? {}) / MiB)} MiB over a baseline of ${Math.round(baseline / MiB)} MiB (${JSON.stringify(last?.held)})`,
    );
  }
  const reading = last as Reading;
  t.diagnostic(
    `external ${Math.round(reading.external / MiB)} MiB, baseline ${Math.round(baseline / MiB)} MiB, held ${JSON.stringify(reading.held)}`,
  );
  for (const [part, held] of Object.entries(reading.held)) {
    assert.ok(held <= (reading.bound[part] ?? 0), `${part} holds ${held}, over its bound`);
  }
  for (const part of ["hub_rings", "star_unsettled", "star_chunk_cache", "readplan_cache"]) {
    assert.ok(part in reading.held, `/metrics reports ${part}`);
  }

  load.stdin.end();
  await exited;
  const counts = JSON.parse(final.trim().split("\n").at(-1) as string);
  assert.equal(counts.type, "final");
  assert.equal(counts.errors, 0, counts.lastError);
  assert.equal(counts.outOfOrder, 0, "every subscriber saw each record once, in order");
  assert.ok(
    counts.records > 0 && counts.resumes > 0 && counts.pages > 0 && counts.longPolls > 0,
    JSON.stringify(counts),
  );
});
