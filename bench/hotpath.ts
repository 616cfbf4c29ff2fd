// `npm run bench:hotpath`: CPU of the gateway's catch-up hot path per GiB, with no network and no
// other process: for each 1 MiB chunk (1000 records of 1 KiB), copy the object into chunk memory
// as a fetch does, verify and index it, copy out and decode its records, write them as an SSE
// batch event, with BENCH_HOTPATH_KEEP (default 250) verified chunks kept alive as the chunk
// cache keeps them (their memory given back as they leave).
// Rows: response bodies in fresh memory and from the response-buffer pool. Prints wall and
// CPU seconds per GiB (CPU includes the garbage collector's helper threads); the first row also pays
// for JIT warm-up, so compare the last two. No thresholds.
import "../scripts/help-first.ts";
import { encodeChunk } from "../src/contract/codec/chunk.ts";
import { ChunkMemoryPool } from "../src/gateway/history/chunk-memory.ts";
import { planEntry } from "../src/gateway/history/plan-entry.ts";
import { type VerifiedChunk, verifyChunk } from "../src/gateway/history/verify-chunk.ts";
import { responseBuffers, takeResponseBuffer } from "../src/gateway/http/response-buffers.ts";
import { positionText, recordsJsonBytes } from "../src/gateway/translate/record-json.ts";
import { batchEventBytes, batchEventHead } from "../src/gateway/translate/sse-events.ts";

const KEEP = Number(process.env.BENCH_HOTPATH_KEEP ?? 250);
const CHUNKS = 1024;
const body = Buffer.alloc(1024, "x");
const chunk = encodeChunk(
  0n,
  Array.from({ length: 1000 }, (_, i) => ({
    headers: [],
    body,
    timestampMs: 1_700_000_000_000n + BigInt(i),
  })),
);
const entry = planEntry({
  location: "url",
  url: "http://store.invalid/nova/chunk",
  footer_off: String(chunk.footerOffset),
  footer_len: chunk.footerLength,
  payload_bytes: String(chunk.payloadBytes),
  first_seq_num: "0",
  min_timestamp_ms: chunk.minTimestampMs.toString(),
  max_timestamp_ms: chunk.maxTimestampMs.toString(),
});
const tail = positionText({ seq_num: "1000", timestamp_ms: "0" }, "number");

/** Chunk memory as the gateway's loader keeps it: given back when a chunk leaves the cache. */
const chunkMemory = new ChunkMemoryPool(32 * 1024 * 1024);

function run(pooled: boolean): { wall: number; cpu: number; bytes: number } {
  const kept: VerifiedChunk[] = [];
  let bytes = 0;
  const t0 = performance.now();
  const c0 = process.cpuUsage();
  for (let n = 0; n < CHUNKS; n++) {
    const memory = chunkMemory.take(chunk.bytes.length);
    chunk.bytes.copy(memory.bytes);
    const verified = verifyChunk(entry, memory);
    kept.push(verified);
    const evicted = kept.length > KEEP ? (kept.shift() as VerifiedChunk).release() : undefined;
    if (evicted) chunkMemory.give(evicted);
    const served = verified.copyRecords(0, verified.count);
    if (!served) throw new Error("a chunk just verified serves");
    const records = Array.from({ length: verified.count }, (_, i) => served.record(i));
    const { json } = recordsJsonBytes(records, "raw", "number");
    const head = batchEventHead("999,1000,1024000");
    const event = batchEventBytes(head, json, tail, pooled ? takeResponseBuffer : undefined);
    bytes += event.length;
    responseBuffers.give(event);
  }
  const cpu = process.cpuUsage(c0);
  return { wall: (performance.now() - t0) / 1000, cpu: (cpu.user + cpu.system) / 1e6, bytes };
}

console.log(`${CHUNKS} chunks of 1000 x 1 KiB records, ${KEEP} verified chunks kept alive`);
console.log("response bodies     wall s/GiB   CPU s/GiB   events MiB");
for (const pooled of [false, true, false, true]) {
  const r = run(pooled);
  const gib = (CHUNKS * chunk.payloadBytes) / 2 ** 30;
  console.log(
    [
      (pooled ? "pooled" : "fresh").padEnd(16),
      (r.wall / gib).toFixed(2).padStart(13),
      (r.cpu / gib).toFixed(2).padStart(11),
      (r.bytes / 2 ** 20).toFixed(0).padStart(12),
    ].join(""),
  );
}
