// One of the client processes `bench/append-flood.ts` spawns. Arguments: the append URL, the
// role (`flood`: `--concurrency` loops of appends of `--batch-mib` MiB of bytes sent as base64
// (records of `--record-kib`, 768 by default); `small`: one loop of one-record appends of 16
// bytes), and `--seconds`. At the end
// it prints one JSON line: appends acked within `--seconds` (an append answered after it, begun
// before, is counted apart: a rate over the window must not take the answers that drain after
// it), 429s and other failures, and every append acked in the window's latency in ms.
import { parseArgs } from "node:util";
import { Pool } from "undici";

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    role: { type: "string", default: "small" },
    concurrency: { type: "string", default: "1" },
    "batch-mib": { type: "string", default: "6" },
    "record-kib": { type: "string", default: "768" },
    seconds: { type: "string", default: "30" },
  },
});
const url = new URL(positionals[0] ?? "");
const flood = values.role === "flood";
// A record holds at most 1 MiB: a batch is records of `--record-kib` (768 KiB by default).
const RECORD_BYTES = Number(values["record-kib"]) * 1024;
const record = { body: Buffer.alloc(RECORD_BYTES, 7).toString("base64") };
const count = Math.round((Number(values["batch-mib"]) * 2 ** 20) / RECORD_BYTES);
const body = JSON.stringify(
  flood
    ? { records: Array.from({ length: count }, () => record) }
    : { records: [{ body: "c21hbGwgYXBwZW5kIQ==" }] },
);
const pool = new Pool(url.origin, { connections: Number(values.concurrency) });
const deadline = performance.now() + Number(values.seconds) * 1000;
const latencies: number[] = [];
let refused = 0;
let failed = 0;
let late = 0;

await Promise.all(
  Array.from({ length: Number(values.concurrency) }, async () => {
    while (performance.now() < deadline) {
      const t0 = performance.now();
      try {
        const res = await pool.request({
          method: "POST",
          path: `${url.pathname}?format=base64`,
          headers: { "content-type": "application/json" },
          body,
        });
        const text = await res.body.text();
        if (res.statusCode !== 200 && res.statusCode !== 429 && failed === 0)
          console.error(text.slice(0, 300));
        const answered = performance.now();
        if (res.statusCode === 200) {
          if (answered <= deadline) latencies.push(answered - t0);
          else late++;
        } else if (res.statusCode === 429) {
          refused++;
          // As a client honouring Retry-After would, without its whole second.
          await new Promise((r) => setTimeout(r, 50));
        } else {
          if (failed++ === 0) console.error(`append answered ${res.statusCode}`);
        }
      } catch (err) {
        if (failed++ === 0) console.error(`append failed: ${String(err)}`);
      }
    }
  }),
);
await pool.close();
console.log(JSON.stringify({ acked: latencies.length, late, refused, failed, latencies }));
