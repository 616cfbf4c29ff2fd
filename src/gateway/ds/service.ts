// What the Durable Streams routes ask of nova: create (or find the same) stream, append a
// message batch, read a page, the stream's metadata, delete. A DS stream is the nova stream
// `key` (the URL path after /ds/v1/stream/) in the face's bucket (--ds-bucket); its content type
// and expiry live on the star's descriptor, so every gateway sees the same.
import { sameMediaType } from "../../contract/media-type.ts";
import type { AppendResponse__Output } from "../../gen/nova/v1/AppendResponse.ts";
import type { Record__Output } from "../../gen/nova/v1/Record.ts";
import type { Stream__Output } from "../../gen/nova/v1/Stream.ts";
import { HttpError, toHttpError } from "../errors/index.ts";
import type { ReadService } from "../history/index.ts";
import type { CallOptions, Upstream } from "../upstream/index.ts";
import { checkRetained } from "./errors.ts";
import type { Expiry, ProducerHeaders } from "./headers.ts";

export interface DsAddress {
  bucket: string;
  key: string;
}

/** What HEAD and every read need of the stream. */
export interface DsStream {
  id: string;
  contentType: string;
  expiry: Expiry;
  /** Closed, and where it is (or would be) closed: the tail. */
  closed: boolean;
  tail: bigint;
  /** What it was forked from (fork.ts), or "". */
  forkOrigin: string;
  /** Forked at least once. */
  forked: boolean;
  /** Deleted while forks of it lived: gone to clients (410), kept for its forks' sake. */
  retired: boolean;
}

export interface CreateSpec {
  contentType: string;
  expiry: Expiry;
  closed: boolean;
  /** The initial messages, one record each. */
  records: Buffer[];
  /** A fork's origin (fork.ts), or "". */
  forkOrigin: string;
  /** A fork's inherited records, copied into the new stream before the initial messages. */
  inherit?: () => Promise<void>;
}

export async function describeStream(
  upstream: Upstream,
  addr: DsAddress,
  call: CallOptions,
): Promise<DsStream> {
  const route = { ...call, ...addr };
  const [info, tail] = await Promise.all([
    streamInfo(upstream, addr, call),
    upstream.unary("CheckTail", addr, route).catch((err: unknown) => {
      throw toHttpError(err, { resource: "stream" });
    }),
  ]);
  return { ...info, closed: tail.closed, tail: BigInt(tail.tail?.seq_num ?? 0) };
}

/** The stream's descriptor and closed state, without its tail: what a read needs first. */
export async function streamInfo(
  upstream: Upstream,
  addr: DsAddress,
  call: CallOptions,
): Promise<Omit<DsStream, "tail">> {
  const got = await upstream
    .unary("GetStream", addr, { ...call, ...addr })
    .catch((err: unknown) => {
      throw toHttpError(err, { resource: "stream" });
    });
  const s = got.stream as Stream__Output;
  return {
    id: s.stream_id,
    contentType: s.content_type,
    expiry: { idleMs: s.expire_idle_ms, atMs: s.expires_at_unix_ms },
    closed: got.closed,
    forkOrigin: s.fork_origin,
    forked: s.forked,
    retired: s.retired_at_unix_ms !== "0",
  };
}

/**
 * How the existing stream's configuration differs from the one a PUT asks for, in words: none
 * makes a second PUT a 200 rather than a 409.
 */
function differences(s: DsStream, spec: CreateSpec): string[] {
  const q = JSON.stringify;
  const ttl = (ms: string) => (ms === "0" ? "none" : `${BigInt(ms) / 1000n} s`);
  const at = (ms: string) => (ms === "0" ? "none" : new Date(Number(ms)).toISOString());
  const out: string[] = [];
  if (!sameMediaType(s.contentType, spec.contentType)) {
    out.push(`content type ${q(s.contentType)}, not ${q(spec.contentType)}`);
  }
  if (s.expiry.idleMs !== spec.expiry.idleMs) {
    out.push(`Stream-TTL ${ttl(s.expiry.idleMs)}, not ${ttl(spec.expiry.idleMs)}`);
  }
  if (s.expiry.atMs !== spec.expiry.atMs) {
    out.push(`Stream-Expires-At ${at(s.expiry.atMs)}, not ${at(spec.expiry.atMs)}`);
  }
  if (s.closed !== spec.closed) out.push(s.closed ? "closed, not open" : "open, not closed");
  if (s.forkOrigin !== spec.forkOrigin) {
    out.push(s.forkOrigin === "" ? "not a fork" : "a fork of another stream or offset");
  }
  return out;
}

export interface Created {
  created: boolean;
  stream: DsStream;
}

/**
 * PUT: a new stream, or the existing one when its configuration is the same (else 409). The
 * initial messages and the close are one append after the create; if that fails the new
 * stream is deleted, so a failed PUT leaves nothing.
 */
export async function createDsStream(
  upstream: Upstream,
  addr: DsAddress,
  spec: CreateSpec,
  call: CallOptions,
): Promise<Created> {
  const route = { ...call, ...addr };
  const config = {
    content_type: spec.contentType,
    expire_idle_ms: spec.expiry.idleMs,
    expires_at_unix_ms: spec.expiry.atMs,
    fork_origin: spec.forkOrigin,
  };
  // No creation token: a stream that exists, made by this PUT's retry or another, is judged by
  // its configuration, and the initial messages are appended only by the PUT that created it.
  const create = () => upstream.unary("CreateStream", { ...addr, config }, route);
  let made: Stream__Output;
  try {
    const res = await create().catch(async (err: unknown) => {
      if (toHttpError(err, { resource: "stream" }).code !== "bucket_not_found") throw err;
      await ensureBucket(upstream, addr.bucket, call);
      return create();
    });
    made = res.stream as Stream__Output;
  } catch (err) {
    const http = toHttpError(err, { resource: "stream" });
    if (http.code === "already_exists") {
      return matching(await describeStream(upstream, addr, call), spec);
    }
    throw http;
  }
  let tail = 0n;
  let closed = false;
  try {
    if (spec.inherit) {
      await spec.inherit();
      tail = BigInt((await upstream.unary("CheckTail", addr, route)).tail?.seq_num ?? 0);
    }
    if (spec.records.length > 0 || spec.closed) {
      const ack = await upstream.unary(
        "Append",
        { ...addr, records: spec.records.map(asRecord), close: spec.closed },
        route,
      );
      tail = BigInt(ack.tail?.seq_num ?? 0);
      closed = ack.closed;
    }
  } catch (err) {
    // What this PUT made goes again: a failed PUT leaves nothing.
    await upstream.unary("DeleteStream", addr, route).catch(() => {});
    throw toHttpError(err, { resource: "stream" });
  }
  const stream = {
    id: made.stream_id,
    contentType: made.content_type,
    expiry: spec.expiry,
    closed,
    tail,
    forkOrigin: made.fork_origin,
    forked: false,
    retired: false,
  };
  return { created: true, stream };
}

function matching(existing: DsStream, spec: CreateSpec): Created {
  if (existing.retired) {
    throw new HttpError(
      409,
      "already_exists",
      "the stream here was deleted and is kept for its forks; its path is free once they are deleted",
    );
  }
  const differ = differences(existing, spec);
  if (differ.length > 0) {
    throw new HttpError(
      409,
      "already_exists",
      `a stream exists here with another configuration (${differ.join("; ")}); delete it first or PUT the same configuration`,
    );
  }
  return { created: false, stream: existing };
}

/** The face's bucket, made on first use. */
async function ensureBucket(upstream: Upstream, bucket: string, call: CallOptions): Promise<void> {
  try {
    await upstream.unary(
      "CreateBucket",
      { name: bucket, creation_token: `ds:${bucket}` },
      { ...call, bucket, key: "" },
    );
  } catch (err) {
    if (toHttpError(err, { resource: "bucket" }).code !== "already_exists") throw err;
  }
}

export interface DsAppend {
  records: Buffer[];
  /** The request's Content-Type; absent on a close-only request. */
  contentType?: string;
  producer?: ProducerHeaders;
  /** Stream-Seq. */
  writerSeq?: string;
  close: boolean;
}

export function appendDs(
  upstream: Upstream,
  addr: DsAddress,
  input: DsAppend,
  call: CallOptions,
): Promise<AppendResponse__Output> {
  const producer = input.producer && {
    id: input.producer.id,
    epoch: input.producer.epoch.toString(),
    seq: input.producer.seq.toString(),
  };
  return upstream.unary(
    "Append",
    {
      ...addr,
      records: input.records.map(asRecord),
      close: input.close,
      ...(input.contentType === undefined ? {} : { content_type: input.contentType }),
      ...(producer ? { producer } : {}),
      ...(input.writerSeq === undefined ? {} : { writer_seq: input.writerSeq }),
    },
    { ...call, ...addr },
  );
}

function asRecord(body: Buffer) {
  return { body, headers: [] };
}

export interface DsPage {
  records: Record__Output[];
  /** The offset after the page: the next to read. */
  next: bigint;
  tail: bigint;
  /** Closed, and the page reaches its end. */
  closed: boolean;
}

/**
 * One page from `seq`, from the stream's first retained record ("start"), or at the tail
 * ("tail": none of its records, only where the tail is and whether the stream is closed).
 */
export async function readDsPage(
  reads: ReadService,
  addr: DsAddress,
  from: bigint | "start" | "tail",
  call: CallOptions,
): Promise<DsPage> {
  const start =
    from === "tail" ? { tail_offset: "0" } : { seq_num: from === "start" ? "0" : from.toString() };
  const { response } = await reads.page(
    addr,
    { start, clamp: from === "start", wait: 0, int64: "string" },
    call,
  );
  const tail = BigInt(response.tail?.seq_num ?? 0);
  if (from === "tail") return { records: [], next: tail, tail, closed: response.closed === true };
  const first = response.records[0];
  const last = response.records.at(-1);
  // Empty below the tail, everything from `from` on was trimmed: the stream now starts there.
  if (from !== "start") checkRetained(from, first ? BigInt(first.seq_num) : tail);
  const next = last ? BigInt(last.seq_num) + 1n : from === "start" ? tail : from;
  return { records: response.records, next, tail, closed: response.closed === true };
}

/** 410 for a stream deleted while forks of it lived. */
export function refuseRetired<T extends { retired: boolean }>(stream: T): T {
  if (stream.retired) {
    throw new HttpError(
      410,
      "gone",
      "the stream was deleted; it is kept only for the forks made of it",
    );
  }
  return stream;
}
