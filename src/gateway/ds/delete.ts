// Deleting a Durable Streams stream (docs/durable-streams.md, "Forks"): one that forks were made
// of and that still has one is retired, not deleted: closed, marked on its descriptor, and gone
// to clients (410; its path 409) while its forks live. Deleting a stream releases what it was
// forked from: a retired source left without forks is deleted then, and so on up the chain.
// Forks hold copies, so a retired stream's records serve nobody; the state is the protocol's.
import { status } from "@grpc/grpc-js";
import { HttpError } from "../errors/index.ts";
import { type CallOptions, StarCallError, type Upstream } from "../upstream/index.ts";
import { parseForkOrigin } from "./fork-origin.ts";
import { type DsAddress, refuseRetired, streamInfo } from "./service.ts";

export async function deleteDs(
  upstream: Upstream,
  addr: DsAddress,
  call: CallOptions,
): Promise<void> {
  const stream = await streamInfo(upstream, addr, call);
  const route = { ...call, ...addr };
  if (stream.forked && (await mayHaveForks(upstream, addr.bucket, stream.id, call))) {
    // Retired already: it stays gone (410) while a fork may live. One retired by a caller that
    // could not tell is deleted here by one that can, once it has no fork left.
    refuseRetired(stream);
    await upstream.unary("Append", { ...addr, records: [], close: true }, route);
    await upstream.unary(
      "ReconfigureStream",
      { ...addr, config: { retired_at_unix_ms: String(Date.now()) } },
      route,
    );
    return;
  }
  await upstream.unary("DeleteStream", addr, route);
  // The stream is gone, and the delete stands whatever its cleanup meets: a token that may not
  // look at the whole bucket (to see whether the source has other forks), or a failure, leaves a
  // retired source as it is (a later delete of another of its forks releases it).
  await release(upstream, addr.bucket, stream.forkOrigin, call).catch(() => undefined);
}

/** After a fork is deleted: its source goes too when retired and left without forks. */
async function release(
  upstream: Upstream,
  bucket: string,
  origin: string,
  call: CallOptions,
): Promise<void> {
  for (let from = parseForkOrigin(origin); from; ) {
    const source = { bucket, key: from.key };
    const info = await streamInfo(upstream, source, call).catch((err: unknown) => {
      if (err instanceof HttpError && err.status === 404) return undefined;
      throw err;
    });
    if (!info || info.id !== from.id || !info.retired) return;
    if (await hasForks(upstream, bucket, info.id, call)) return;
    await upstream.unary("DeleteStream", source, { ...call, ...source });
    from = parseForkOrigin(info.forkOrigin);
  }
}

/**
 * Whether stream `id` may have forks: a caller that may not list the whole bucket (a tenant of
 * key prefixes) cannot tell, and its delete retires the stream, which is gone to clients all
 * the same; a later delete of its last fork, by a caller that may list, releases it.
 */
async function mayHaveForks(
  upstream: Upstream,
  bucket: string,
  id: string,
  call: CallOptions,
): Promise<boolean> {
  return hasForks(upstream, bucket, id, call).catch((err: unknown) => {
    if (err instanceof StarCallError && err.code === status.PERMISSION_DENIED) return true;
    throw err;
  });
}

/** Whether any stream of the bucket (retired ones included) was forked from stream `id`. */
async function hasForks(
  upstream: Upstream,
  bucket: string,
  id: string,
  call: CallOptions,
): Promise<boolean> {
  let after = "";
  do {
    const page = await upstream.unary(
      "ListStreams",
      { bucket, start_after: after, limit: 1000, prefix: "" },
      call,
    );
    if (page.streams.some((s) => parseForkOrigin(s.fork_origin)?.id === id)) return true;
    after = page.next;
  } while (after !== "");
  return false;
}
