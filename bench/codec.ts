// Stored-record and chunk codec throughput, each beside copying the same bytes with
// Buffer.copy. Prints a table; no thresholds. Every case runs for a fixed time budget.

import "../scripts/help-first.ts";
import { performance } from "node:perf_hooks";
import { type ChunkRecord, decodeChunk, encodeChunk } from "../src/contract/codec/chunk.ts";
import { crc32cNative, crc32cPortable } from "../src/contract/codec/crc32c.ts";
import {
  contentBytes,
  decodeStoredRecord,
  encodeStoredRecord,
  encodeStoredRecordInto,
  type RecordHeader,
  type StoredRecord,
} from "../src/contract/codec/stored-record.ts";
import {
  needsJsonEscapePortable,
  needsJsonEscapeSimd,
} from "../src/gateway/translate/json-escape.ts";

const WARMUP_MS = 150;
const BUDGET_MS = 700;
/** Each timed operation handles about this much content, so per-call overhead is amortised. */
const BATCH_CONTENT = 1 << 20;

/** Seconds per call of `op`, after a warm-up. */
function timePerCall(op: () => void): number {
  const warmEnd = performance.now() + WARMUP_MS;
  while (performance.now() < warmEnd) op();
  let calls = 0;
  const start = performance.now();
  let now = start;
  while (now - start < BUDGET_MS) {
    op();
    calls++;
    now = performance.now();
  }
  return (now - start) / 1000 / calls;
}

const filled = (n: number, seed: number) => Buffer.alloc(n, seed);

const THREE_HEADERS: RecordHeader[] = [
  { name: Buffer.from("content-type"), value: Buffer.from("application/json") },
  { name: Buffer.from("trace-id"), value: Buffer.from("4bf92f3577b34da6a3ce929d0e0e4736") },
  { name: Buffer.from("tenant"), value: Buffer.from("acme") },
];

interface Row {
  name: string;
  records: number;
  content: number;
  codec: number;
  copy: number;
}

function recordCase(bodyBytes: number, headers: RecordHeader[]): Row[] {
  const record: StoredRecord = { headers, body: filled(bodyBytes, 0x61) };
  const size = contentBytes(record);
  const count = Math.ceil(BATCH_CONTENT / size);
  const records = Array.from({ length: count }, () => ({ headers, body: filled(bodyBytes, 0x61) }));
  const encoded = records.map(encodeStoredRecord);
  const stored = Buffer.concat(encoded);
  const offsets = [0];
  for (const e of encoded) offsets.push((offsets.at(-1) ?? 0) + e.length);
  const out = Buffer.allocUnsafe(stored.length);
  const label = `${bodyBytes} B body, ${headers.length} headers`;
  const content = count * size;

  const encode = timePerCall(() => {
    let pos = 0;
    for (const r of records) pos += encodeStoredRecordInto(r, out, pos);
  });
  const encodeCopy = timePerCall(() => {
    let pos = 0;
    for (const e of encoded) pos += e.copy(out, pos);
  });
  const decode = timePerCall(() => {
    for (let i = 0; i < count; i++) {
      decodeStoredRecord(stored.subarray(offsets[i], offsets[i + 1]));
    }
  });
  const decodeCopy = timePerCall(() => {
    for (let i = 0; i < count; i++) stored.copy(out, 0, offsets[i], offsets[i + 1]);
  });
  return [
    { name: `encode ${label}`, records: count, content, codec: encode, copy: encodeCopy },
    { name: `decode ${label}`, records: count, content, codec: decode, copy: decodeCopy },
  ];
}

function chunkCase(): Row {
  const body = filled(1024, 0x62);
  const count = Math.ceil(BATCH_CONTENT / contentBytes({ headers: THREE_HEADERS, body }));
  const records: ChunkRecord[] = Array.from({ length: count }, (_, i) => ({
    headers: THREE_HEADERS,
    body,
    timestampMs: 1700000000000n + BigInt(i),
  }));
  const { bytes } = encodeChunk(0n, records);
  const out = Buffer.allocUnsafe(bytes.length);
  return {
    name: `decodeChunk ${(bytes.length / 2 ** 20).toFixed(2)} MiB (1 KiB, 3 headers)`,
    records: count,
    content: records.reduce((n, r) => n + contentBytes(r), 0),
    codec: timePerCall(() => decodeChunk(bytes)),
    copy: timePerCall(() => bytes.copy(out)),
  };
}

/** CRC-32C of 1 MiB (a chunk's DataCRC), each implementation the codec may use. */
function crcCases(): Row[] {
  const data = Buffer.alloc(1 << 20, 0x63);
  const out = Buffer.allocUnsafe(data.length);
  const copy = timePerCall(() => data.copy(out));
  const impls: [string, (d: Uint8Array) => number][] = [["portable", crc32cPortable]];
  if (crc32cNative) impls.push(["native (@node-rs/crc32)", crc32cNative]);
  return impls.map(([name, crc]) => ({
    name: `crc32c 1 MiB, ${name}`,
    records: 1,
    content: data.length,
    codec: timePerCall(() => crc(data)),
    copy,
  }));
}

/**
 * The JSON escape check over 1 MiB of 1 KiB record bodies (a page's, in `raw`), one call per
 * body, each implementation the gateway may use.
 */
function escapeCases(): Row[] {
  const data = Buffer.alloc(1 << 20, 0x78);
  const bodies = Array.from({ length: 1024 }, (_, i) => data.subarray(i * 1024, (i + 1) * 1024));
  const out = Buffer.allocUnsafe(data.length);
  const copy = timePerCall(() => data.copy(out));
  const impls: [string, (b: Uint8Array) => boolean][] = [["portable", needsJsonEscapePortable]];
  if (needsJsonEscapeSimd) impls.push(["WebAssembly SIMD", needsJsonEscapeSimd]);
  return impls.map(([name, check]) => ({
    name: `JSON escape check, 1024 x 1 KiB, ${name}`,
    records: bodies.length,
    content: data.length,
    codec: timePerCall(() => {
      for (const b of bodies) check(b);
    }),
    copy,
  }));
}

function print(rows: Row[]): void {
  const header = ["case", "records/s", "content MB/s", "copy MB/s", "codec/copy"];
  const lines = rows.map((r) => [
    r.name,
    Math.round(r.records / r.codec).toLocaleString("en-US"),
    (r.content / r.codec / 1e6).toFixed(1),
    (r.content / r.copy / 1e6).toFixed(1),
    `${(r.copy / r.codec).toFixed(3)}x`,
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => (l[i] ?? "").length)));
  for (const cells of [header, ...lines]) {
    console.log(
      cells
        .map((c, i) => (i === 0 ? c.padEnd(widths[i] ?? 0) : c.padStart(widths[i] ?? 0)))
        .join("  "),
    );
  }
}

const started = performance.now();
const rows = [
  ...recordCase(100, []),
  ...recordCase(100, THREE_HEADERS),
  ...recordCase(1024, []),
  ...recordCase(1024, THREE_HEADERS),
  chunkCase(),
  ...crcCases(),
  ...escapeCases(),
];
print(rows);
console.log(
  `\nMB = 10^6 content bytes (body + header names and values). copy = Buffer.copy of the same ` +
    `stored bytes (per record for record rows, one call for the chunk). ` +
    `${((performance.now() - started) / 1000).toFixed(1)} s, node ${process.version}.`,
);
