// Forks (docs/durable-streams.md, "Forks"): a PUT with Stream-Forked-From makes a stream that
// starts with a copy of the source's records below the fork offset, then lives on its own. The
// copy keeps seq_nums, so the fork's offsets are the source's up to the fork point, as the
// protocol wants; it is bounded (FORK_COPY_MAX_BYTES) and made before the PUT answers, and a
// failed copy deletes the fork.
import type { IncomingHttpHeaders } from "node:http";
import { sameMediaType } from "../../contract/media-type.ts";
import { badHeader, HttpError, payloadTooLarge } from "../errors/index.ts";
import type { ReadService } from "../history/index.ts";
import type { CallOptions, Upstream } from "../upstream/index.ts";
import { forkOrigin } from "./fork-origin.ts";
import { DECIMAL, type Expiry } from "./headers.ts";
import { offsetOf, parseOffset } from "./offsets.ts";
import { isJsonMode } from "./render.ts";
import { type DsAddress, describeStream } from "./service.ts";

/** The most a fork copies from its source. */
export const FORK_COPY_MAX_BYTES = 64 * 1024 * 1024;

export interface ForkRequest {
  sourceKey: string;
  /** The fork point; absent: the source's tail. */
  offset: bigint | undefined;
  /** Past the fork point: messages of a JSON source, else bytes. */
  sub: bigint;
}

const STREAM_PATH = "/v1/stream/";

/** Stream-Forked-From, -Fork-Offset and -Fork-Sub-Offset; undefined when not a fork. */
export function forkHeaders(headers: IncomingHttpHeaders): ForkRequest | undefined {
  const from = headers["stream-forked-from"];
  const offset = headers["stream-fork-offset"];
  const sub = headers["stream-fork-sub-offset"];
  if (typeof from !== "string") {
    if (offset !== undefined || sub !== undefined) {
      throw badHeader("stream-forked-from", "is required with Stream-Fork-Offset or -Sub-Offset");
    }
    return undefined;
  }
  const at = from.indexOf(STREAM_PATH);
  const encoded = at < 0 ? "" : from.slice(at + STREAM_PATH.length).split("?")[0];
  let sourceKey: string;
  try {
    sourceKey = decodeURIComponent(encoded ?? "");
  } catch {
    sourceKey = "";
  }
  if (sourceKey === "") {
    throw badHeader("stream-forked-from", "must be a stream's path on this server, /v1/stream/...");
  }
  const point =
    typeof offset === "string" ? parseOffset(offset, "stream-fork-offset") : { at: "now" as const };
  if (point.at === "start") throw badHeader("stream-fork-offset", "must be an offset, not -1");
  if (typeof sub === "string" && !DECIMAL.test(sub)) {
    throw badHeader("stream-fork-sub-offset", "must be an integer >= 0");
  }
  const past = typeof sub === "string" ? BigInt(sub) : 0n;
  if (past > 0n && offset === undefined) {
    throw badHeader("stream-fork-sub-offset", "needs Stream-Fork-Offset, which it refines");
  }
  return { sourceKey, offset: point.at === "seq" ? point.seq : undefined, sub: past };
}

export interface ForkPlan {
  contentType: string;
  expiry: Expiry;
  forkOrigin: string;
  /** Copies the inherited records into the fork. */
  inherit(fork: DsAddress): Promise<void>;
}

/**
 * What a fork of `req` is: the source's content type (a different one asked for is a 409), its
 * expiry unless the request names one, and the copy to make.
 */
export async function planFork(
  upstream: Upstream,
  reads: ReadService,
  bucket: string,
  req: ForkRequest,
  asked: { contentType: string | undefined; expiry: Expiry },
  call: CallOptions,
): Promise<ForkPlan> {
  const source = { bucket, key: req.sourceKey };
  const info = await describeStream(upstream, source, call).catch((err: unknown) => {
    if (err instanceof HttpError && err.status === 404) {
      throw new HttpError(
        404,
        "stream_not_found",
        `stream-forked-from: no stream at ${source.key}`,
      );
    }
    throw err;
  });
  if (info.retired) {
    throw new HttpError(
      409,
      "already_exists",
      "stream-forked-from: the source was deleted; it is kept only for the forks made before",
    );
  }
  const offset = req.offset ?? info.tail;
  if (offset > info.tail) {
    throw badHeader("stream-fork-offset", `is beyond the source's tail, ${offsetOf(info.tail)}`);
  }
  if (asked.contentType !== undefined && !sameMediaType(asked.contentType, info.contentType)) {
    throw new HttpError(
      409,
      "content_type_mismatch",
      `content-type: a fork has its source's type, ${JSON.stringify(info.contentType)}; send that or none`,
    );
  }
  const own = asked.expiry.idleMs !== "0" || asked.expiry.atMs !== "0";
  // Past the offset: whole messages of a JSON source; bytes of any other, the last message cut.
  const json = isJsonMode(info.contentType);
  if (json && offset + req.sub > info.tail) {
    throw badHeader("stream-fork-sub-offset", `is past the source's last message`);
  }
  const whole = json ? offset + req.sub : offset;
  const bytes = json ? 0n : req.sub;
  return {
    contentType: info.contentType,
    expiry: own ? asked.expiry : info.expiry,
    forkOrigin: forkOrigin({
      key: source.key,
      id: info.id,
      offset: offsetOf(offset),
      sub: req.sub.toString(),
    }),
    inherit: async (fork) => {
      // Marked first: a deletion of the source from now on looks for its forks. Marked again
      // when it is already: the mark is what checks the caller's create on the source.
      await upstream.unary(
        "ReconfigureStream",
        { ...source, config: { forked: true } },
        { ...call, ...source },
      );
      await copyInherited(upstream, reads, source, fork, { records: whole, bytes }, call);
    },
  };
}

/**
 * The source's records [0, upTo.records) appended to the fork, page by page, with their
 * timestamps; then upTo.bytes more bytes: whole records while they fit, the rest as the first
 * bytes of the next one (past the source's last byte is a 400). At most FORK_COPY_MAX_BYTES.
 */
async function copyInherited(
  upstream: Upstream,
  reads: ReadService,
  source: DsAddress,
  fork: DsAddress,
  upTo: { records: bigint; bytes: bigint },
  call: CallOptions,
): Promise<void> {
  let at = 0n;
  let left = upTo.bytes;
  let copied = 0;
  while (at < upTo.records || left > 0n) {
    const whole = at < upTo.records;
    const { response } = await reads.page(
      source,
      {
        start: { seq_num: at.toString() },
        ...(whole ? { count: upTo.records - at } : {}),
        clamp: false,
        wait: 0,
        int64: "string",
      },
      call,
    );
    const first = response.records[0];
    if (!first && !whole)
      throw badHeader("stream-fork-sub-offset", "is past the source's last byte");
    if (!first || BigInt(first.seq_num) !== at) {
      throw new HttpError(
        409,
        "failed_precondition",
        `stream-forked-from: the source no longer holds record ${at} (trimmed), and a fork inherits every record before its offset; only a fork at offset 0 inherits none`,
      );
    }
    const records = [];
    for (const r of response.records) {
      let body = r.body;
      if (at + BigInt(records.length) >= upTo.records) {
        if (left === 0n) break;
        if (BigInt(body.length) > left) body = body.subarray(0, Number(left));
        left -= BigInt(body.length);
      }
      copied += body.length;
      records.push({ body, headers: r.headers, timestamp_ms: r.timestamp_ms });
    }
    if (copied > FORK_COPY_MAX_BYTES) {
      throw payloadTooLarge(
        "stream-fork-offset",
        `a fork copies what it inherits, and this one is over ${FORK_COPY_MAX_BYTES} bytes; fork at an earlier offset`,
      );
    }
    await upstream.unary(
      "Append",
      { ...fork, records, match_seq_num: at.toString() },
      { ...call, ...fork },
    );
    at += BigInt(records.length);
  }
}
