// Until the S2 face's records route is in (issue 20), this stands in for it: POST and GET
// /v1/streams/{stream}/records with the basin in `s2-basin`, on the gateway's own listener
// (HTTP/1.1 and h2c on one port), answered by the s2s sessions over the real fleet client.
// It takes the route's few decisions the simple way: the basin is the bucket, data batches only.
import Fastify from "fastify";
import {
  AppendAdmission,
  createMetrics,
  type GatewayServer,
  gatewayServer,
  LiveSessions,
} from "../../src/gateway/http/index.ts";
import { type ReadStart, stringifyJsonExact } from "../../src/gateway/json/index.ts";
import { appendAckToS2, planAppend, s2Error, toS2Error } from "../../src/gateway/s2/index.ts";
import {
  isS2s,
  type S2sDeps,
  serveS2sAppend,
  serveS2sRead,
  sessionWaitMs,
} from "../../src/gateway/s2/s2s/index.ts";
import { FleetClient, fleetUpstream } from "../../src/gateway/upstream/index.ts";

export interface StandIn {
  base: string;
  port: number;
  close(): Promise<void>;
}

type Query = Record<string, string | undefined>;

const big = (v: string | undefined) => (v === undefined ? undefined : BigInt(v));

export async function s2sStandIn(stars: string[], port = 0): Promise<StandIn> {
  const fleet = new FleetClient({ stars });
  const upstream = fleetUpstream(fleet);
  const sessions = new LiveSessions();
  const deps: S2sDeps = {
    subscribe: {
      upstream,
      metrics: createMetrics(),
      sessions,
      slowConsumerMs: 30_000,
      failoverMs: 30_000,
      maxWaitS: 60,
    },
    admission: new AppendAdmission(64 * 1024 * 1024),
    async append(input, { bucket, key, call }) {
      const plan = planAppend(input);
      if (plan.kind !== "append") throw s2Error("not_implemented", "commands: not in the stand-in");
      const ack = await upstream.unary(
        "Append",
        { bucket, key, ...plan.batch },
        { ...call, bucket, key },
      );
      return appendAckToS2(ack);
    },
  };
  const app = Fastify({
    serverFactory: (handler) =>
      gatewayServer(handler, {
        headersTimeoutMs: 10_000,
        keepAliveTimeoutMs: 60_000,
        h2MaxStreams: 100,
      }) as GatewayServer as never,
  });
  app.addContentTypeParser("s2s/proto", (_req, _payload, done) => done(null, undefined));
  app.setErrorHandler((err, _req, reply) => {
    const { status, headers, body } = toS2Error(err, { resource: "stream" });
    reply.code(status).headers(headers).type("application/json").send(stringifyJsonExact(body));
  });
  app.addHook("preClose", () => sessions.drainAll(5_000));
  const stream = (req: { headers: Record<string, unknown>; params: unknown }) => ({
    bucket: String(req.headers["s2-basin"]),
    key: (req.params as { stream: string }).stream,
  });
  app.post("/v1/streams/:stream/records", async (req, reply) => {
    if (!isS2s(req.headers["content-type"])) throw s2Error("bad_header", "stand-in: s2s only");
    return serveS2sAppend({ ...stream(req), call: {} }, reply, deps);
  });
  app.get("/v1/streams/:stream/records", async (req, reply) => {
    if (!isS2s(req.headers["content-type"])) throw s2Error("bad_header", "stand-in: s2s only");
    const q = req.query as Query;
    const abort = new AbortController();
    reply.raw.once("close", () => abort.abort());
    const start: ReadStart =
      q.seq_num !== undefined
        ? { seq_num: q.seq_num }
        : q.tail_offset !== undefined
          ? { tail_offset: q.tail_offset }
          : {};
    const bounds = {
      ...(q.count === undefined ? {} : { count: BigInt(q.count) }),
      ...(q.bytes === undefined ? {} : { bytes: BigInt(q.bytes) }),
      ...(q.until === undefined ? {} : { untilMs: big(q.until) }),
    };
    return serveS2sRead(
      {
        ...stream(req),
        call: { signal: abort.signal },
        cursor: { start, clamp: q.clamp === "true" },
        bounds,
        waitMs: sessionWaitMs(q.wait === undefined ? undefined : Number(q.wait), bounds),
      },
      reply,
      deps,
    );
  });
  const listening = await app.listen({ host: "127.0.0.1", port });
  return {
    base: listening,
    port: Number(new URL(listening).port),
    async close() {
      await app.close();
      fleet.close();
    },
  };
}
