// A model of one star's stream for the readplan unit tests: chunks encoded by the codec into an
// in-memory object store, and Read, ReadPlan and CheckTail answered from the model the way the
// reference star answers them (StreamLog.read, resolveStart, the ReadPlan contract). Read
// always serves the true records, as the star's own chunk cache would. Not a test file.

import { status } from "@grpc/grpc-js";
import { type ChunkRecord, contentBytes, encodeChunk } from "../../contract/codec/index.ts";
import { PageRule } from "../../contract/page-rule.ts";
import type { Method } from "../../contract/proto/index.ts";
import type { ReadPlanEntry } from "../../gen/nova/v1/ReadPlanEntry.ts";
import type { Record__Output } from "../../gen/nova/v1/Record.ts";
import type { ObjectStore } from "../../platform/objstore/index.ts";
import { createMemoryStore } from "../../platform/objstore/index.ts";
import type { Upstream } from "../upstream/index.ts";
import { StarCallError } from "../upstream/index.ts";

export interface ModelChunk {
  first: bigint;
  records: ChunkRecord[];
  key: string;
  size: number;
  footerLength: number;
}

export interface ModelOptions {
  /** Records per chunk, in order. */
  chunks: ChunkRecord[][];
  trim?: bigint;
  /** Chunks at the end that ReadPlan does not vend (not settled). */
  unsettled?: number;
  /** ReadPlan's cap on entries. */
  planCap?: number;
  /** Read's page maximum in records (the star's is 1000). */
  pageRecords?: number;
  /** Read fails on a damaged chunk it looks at, as a star reading the store (no cache) does. */
  refuseDamaged?: boolean;
}

const PAGE_BYTES = 1024 * 1024;

export class ModelStar {
  readonly store: ObjectStore = createMemoryStore("mem");
  readonly chunks: ModelChunk[] = [];
  readonly calls: Method[] = [];
  trim: bigint;
  readonly unsettled: number;
  readonly planCap: number;
  readonly pageRecords: number;
  readonly refuseDamaged: boolean;
  /** First seq_nums of the chunks corrupted or removed in the store. */
  readonly damaged = new Set<bigint>();

  private constructor(opts: ModelOptions) {
    this.trim = opts.trim ?? 0n;
    this.unsettled = opts.unsettled ?? 0;
    this.planCap = opts.planCap ?? 1000;
    this.pageRecords = opts.pageRecords ?? 1000;
    this.refuseDamaged = opts.refuseDamaged ?? false;
  }

  static async create(opts: ModelOptions): Promise<ModelStar> {
    const star = new ModelStar(opts);
    let first = 0n;
    for (const [i, records] of opts.chunks.entries()) {
      const encoded = encodeChunk(first, records);
      const key = `chunks/s/${String(i).padStart(6, "0")}`;
      await star.store.put(key, encoded.bytes);
      star.chunks.push({
        first,
        records,
        key,
        size: encoded.bytes.length,
        footerLength: encoded.footerLength,
      });
      first += BigInt(records.length);
    }
    return star;
  }

  get tail(): { seq_num: string; timestamp_ms: string } {
    const last = this.chunks.at(-1);
    const n = last ? last.first + BigInt(last.records.length) : 0n;
    const ts = last?.records.at(-1)?.timestampMs ?? 0n;
    return { seq_num: n.toString(), timestamp_ms: ts.toString() };
  }

  /** Every live record, as the star serves it. */
  all(): Record__Output[] {
    const out: Record__Output[] = [];
    for (const c of this.chunks) {
      c.records.forEach((r, i) => {
        const seq = c.first + BigInt(i);
        if (seq >= this.trim) {
          out.push({
            seq_num: seq.toString(),
            timestamp_ms: r.timestampMs.toString(),
            body: Buffer.from(r.body),
            headers: r.headers.map((h) => ({
              name: Buffer.from(h.name),
              value: Buffer.from(h.value),
            })),
          });
        }
      });
    }
    return out;
  }

  #seqForTimestamp(ts: bigint): bigint {
    for (const r of this.all()) {
      if (BigInt(r.timestamp_ms) >= ts) return BigInt(r.seq_num);
    }
    return BigInt(this.tail.seq_num);
  }

  #resolve(req: { seq_num?: string; timestamp_ms?: string; clamp?: boolean }): bigint {
    const tail = BigInt(this.tail.seq_num);
    if (req.seq_num !== undefined) {
      const s = BigInt(req.seq_num);
      if (s <= tail) return s;
      if (req.clamp) return tail;
      throw new StarCallError(
        { code: status.OUT_OF_RANGE, details: "beyond the tail" },
        { method: "Read" },
      );
    }
    if (req.timestamp_ms !== undefined) return this.#seqForTimestamp(BigInt(req.timestamp_ms));
    return tail;
  }

  read(req: {
    seq_num?: string;
    timestamp_ms?: string;
    count?: number;
    bytes?: string;
    until_ms?: string;
    clamp?: boolean;
  }) {
    const start = this.#resolve(req);
    const page = this.pageRecords;
    const maxRecords = !req.count || req.count > page ? page : req.count;
    const askedBytes = Number(req.bytes ?? "0");
    const maxBytes = askedBytes <= 0 || askedBytes > PAGE_BYTES ? PAGE_BYTES : askedBytes;
    const until = req.until_ms === undefined ? undefined : BigInt(req.until_ms);
    const rule = new PageRule(maxRecords, maxBytes, until);
    const out: Record__Output[] = [];
    for (const r of this.all()) {
      if (BigInt(r.seq_num) < start) continue;
      // The star loads a chunk only to look at one of its records, never past a full count.
      if (rule.full) break;
      if (this.refuseDamaged && this.damaged.has(this.#chunkOf(BigInt(r.seq_num)))) {
        throw new StarCallError(
          { code: status.INTERNAL, details: "corrupt chunk" },
          { method: "Read" },
        );
      }
      const size = contentBytes(r);
      if (!rule.admits(BigInt(r.timestamp_ms), size)) break;
      out.push(r);
      rule.take(size);
    }
    return { records: out, tail: this.tail };
  }

  readPlan(req: { seq_num?: string; timestamp_ms?: string; limit?: number; clamp?: boolean }) {
    const start =
      req.timestamp_ms === undefined
        ? this.#resolve(req)
        : this.#seqForTimestamp(BigInt(req.timestamp_ms));
    const settled = this.chunks.slice(0, Math.max(0, this.chunks.length - this.unsettled));
    const limit = !req.limit || req.limit > this.planCap ? this.planCap : req.limit;
    const entries: ReadPlanEntry[] = [];
    let vendedUntil: bigint | undefined;
    let more = false;
    for (const c of settled) {
      const end = c.first + BigInt(c.records.length);
      if (end <= start) continue;
      // Never a chunk holding a trimmed record, whatever the start (docs/readplan.md).
      if (c.first < this.trim) continue;
      if (entries.length === limit) {
        more = true;
        break;
      }
      // Timestamps never decrease along a stream.
      const ts = c.records.map((r) => r.timestampMs);
      entries.push({
        object: { storage_bucket: "mem", object_key: c.key },
        footer_off: String(c.size - c.footerLength),
        footer_len: c.footerLength,
        payload_bytes: String(c.size - c.footerLength),
        first_seq_num: c.first.toString(),
        min_timestamp_ms: String(ts[0]),
        max_timestamp_ms: String(ts.at(-1)),
      });
      vendedUntil = end;
    }
    return {
      entries: entries.map((e) => ({ ...e, location: "object" as const })),
      ...(vendedUntil === undefined ? {} : { vended_until: vendedUntil.toString() }),
      more,
      expires_at_unix_ms: String(Date.now() + 60_000),
    };
  }

  /** The fleet as the gateway sees it: unary calls answered from the model, counted. */
  upstream(): Pick<Upstream, "unary"> {
    return {
      unary: (async (method: Method, request: Record<string, unknown>) => {
        this.calls.push(method);
        await Promise.resolve();
        switch (method) {
          case "Read":
            return this.read(request);
          case "ReadPlan":
            return this.readPlan(request);
          case "CheckTail":
            return { tail: this.tail };
          default:
            throw new StarCallError({ code: status.UNIMPLEMENTED, details: method }, { method });
        }
      }) as Upstream["unary"],
    };
  }

  #chunkOf(seq: bigint): bigint {
    const c = this.chunks.findLast((c) => c.first <= seq) as ModelChunk;
    return c.first;
  }

  /** Damages a stored chunk object: flips one bit at `offset`. */
  async corrupt(index: number, offset: number): Promise<void> {
    const c = this.chunks[index] as ModelChunk;
    this.damaged.add(c.first);
    const bytes = (await this.store.get(c.key)) as Buffer;
    const at = offset % bytes.length;
    bytes[at] = (bytes[at] as number) ^ 1;
    await this.store.put(c.key, bytes);
  }

  async remove(index: number): Promise<void> {
    const c = this.chunks[index] as ModelChunk;
    this.damaged.add(c.first);
    await this.store.delete([c.key]);
  }
}
