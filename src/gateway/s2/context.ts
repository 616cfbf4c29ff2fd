// What every S2 route reads from a request: the basin (the `s2-basin` header, else the first
// label of the Host, as in S2's `{basin}.b.s2.dev`), the stream name, and the call options
// (the SDK's access token arrives as `Authorization: Bearer`, forwarded to the stars as on
// nova's routes).
import { isIP } from "node:net";
import type { FastifyReply, FastifyRequest } from "fastify";
import { clientAbortSignal } from "../http/index.ts";
import { checkStreamKey } from "../translate/index.ts";
import type { CallOptions } from "../upstream/index.ts";
import { checkBasinName } from "./config.ts";
import { s2Error } from "./errors.ts";

export const BASIN_HEADER = "s2-basin";
export const ENCRYPTION_KEY_HEADER = "s2-encryption-key";

export function s2Call(req: FastifyRequest, reply: FastifyReply): CallOptions {
  return { authorization: req.headers.authorization, signal: clientAbortSignal(reply) };
}

/** The basin a basin-scoped request addresses. */
export function requestBasin(req: FastifyRequest): string {
  const header = req.headers[BASIN_HEADER];
  if (typeof header === "string") return checkBasinName(header, BASIN_HEADER, "bad_header");
  const host = req.hostname;
  const label = host.split(".")[0] ?? "";
  if (host.includes(".") && isIP(host) === 0) return checkBasinName(label, "host", "bad_header");
  throw s2Error(
    "bad_header",
    `${BASIN_HEADER}: the basin is required: send the ${BASIN_HEADER} header (the SDK does when its basin endpoint is set) or address {basin}.<host>`,
  );
}

/** The stream of a `/v1/streams/{stream}` route, with its basin. */
export function streamOf(req: FastifyRequest): { bucket: string; key: string } {
  refuseEncryption(req);
  const { stream } = req.params as { stream: string };
  const key = checkStreamKey(stream, "stream", (field, reason) =>
    s2Error("bad_path", `${field}: ${reason}`),
  );
  return { bucket: requestBasin(req), key };
}

/** Nova stores what it is sent: a record key for S2's stream ciphers cannot be honored. */
function refuseEncryption(req: FastifyRequest): void {
  if (req.headers[ENCRYPTION_KEY_HEADER] !== undefined) {
    throw s2Error(
      "bad_header",
      `${ENCRYPTION_KEY_HEADER}: nova does not encrypt records with client keys; send records without it`,
    );
  }
}
