// The gateway's client for a fleet of stars: routes each call to the stream's leader when it is
// known (else to a seed star), follows NotOwner redirects within a hop budget, moves off stars
// that stop answering, and never replays a request whose outcome may already be decided.
import * as grpc from "@grpc/grpc-js";
import type { MethodDefinition } from "@grpc/proto-loader";
import type {
  Method,
  RequestOf,
  ResponseOf,
  StreamingMethod,
  UnaryMethod,
} from "../../contract/proto/index.ts";
import { findDetail, type InProcessStar, nova } from "../../contract/proto/index.ts";
import type { AppendSessionOpen } from "../../gen/nova/v1/AppendSessionOpen.ts";
import type { AppendSessionResponse__Output } from "../../gen/nova/v1/AppendSessionResponse.ts";
import type { SubscribeRequest } from "../../gen/nova/v1/SubscribeRequest.ts";
import {
  DEFAULT_APPEND_DEADLINE_MS,
  DEFAULT_CALL_DEADLINE_MS,
  DEFAULT_HEALTH_DEADLINE_MS,
} from "../settings.ts";
import { laneOf } from "./call-lane.ts";
import { ChannelPool, type Keepalive, type Lane, type Lease } from "./channel-pool.ts";
import {
  abortError,
  FleetError,
  hopStatus,
  notOwnerLeader,
  StarCallError,
  type StatusName,
  statusName,
} from "./errors.ts";
import { startUnary, type UnaryEnd } from "./h2-unary.ts";
import { startInProcess } from "./in-process-unary.ts";
import { LeaderCache } from "./leader-cache.ts";
import { awaitReady, type Readiness } from "./ready.ts";
import type { AppendSession, AppendSessionCall, CallOptions, SubscribeCall } from "./upstream.ts";

export interface FleetObserver {
  /** Each upstream call when it ends: every hop counts, one that never connected too. */
  onCall?(method: Method, code: StatusName, durationMs: number): void;
  /** Each NotOwner redirect followed. */
  onRedirect?(method: Method): void;
}

export interface FleetClientOptions {
  /** Seed star addresses, HOST:PORT. */
  stars: readonly string[];
  /** Redirects plus failovers one request may take after its first hop. */
  maxHops?: number;
  /**
   * Per-verb deadline in ms, covering every hop (Infinity: none). Defaults: `callDeadlineMs`,
   * Append 60 s, Subscribe none. For AppendSession it bounds the open handshake, not the session.
   */
  deadlines?: Partial<Record<Method, number>>;
  /** The deadline of a verb `deadlines` does not name, ms; default 30 s. */
  callDeadlineMs?: number;
  /** A health check's deadline (/readyz), ms; default 2 s. */
  healthDeadlineMs?: number;
  observer?: FleetObserver;
  maxChannels?: number;
  /** Pings on every connection to a star; default DEFAULT_STAR_KEEPALIVE (settings.ts). */
  keepalive?: Keepalive;
  maxLeaders?: number;
  /** A star in this process (an embedded star) at one of the addresses: unary calls skip the connection. */
  inProcess?: { address: string; star: InProcessStar };
}

export interface StarHealth {
  address: string;
  ready: boolean;
  star_id?: string;
  /** Why the star did not answer. */
  error?: string;
}

export interface FleetHealth {
  /** Some star answered ready. */
  ready: boolean;
  stars: StarHealth[];
}

const SERVICE = nova.DataPlaneService.service;
const HEALTH = nova.AdminPlaneService.service.Health;

export const DEFAULT_MAX_HOPS = 3;
const DEFAULT_DEADLINES: Partial<Record<Method, number>> = {
  Append: DEFAULT_APPEND_DEADLINE_MS,
  Subscribe: Infinity,
};

/** Statuses after which a started request may or may not have taken effect. */
const UNDECIDED = new Set([
  grpc.status.UNAVAILABLE,
  grpc.status.DEADLINE_EXCEEDED,
  grpc.status.CANCELLED,
]);

interface StreamRef {
  bucket: string;
  key: string;
}

/** One attempt's channel and call settings. */
interface Hop {
  lease: Lease;
  /** The star in this process, when the call is a unary call to it. */
  inProcess?: InProcessStar;
  deadline: number;
  metadata: grpc.Metadata;
  started: number;
}

/** One hop's failure, for the route to decide whether to go on; never escapes it. */
class HopFailure extends Error {
  readonly status: { code: grpc.status; details: string; metadata?: grpc.Metadata };
  /** The call started on a connected channel, so the star may have acted on it. */
  readonly sent: boolean;
  readonly aborted: boolean;

  constructor(status: HopFailure["status"], sent: boolean, aborted: boolean) {
    super(status.details);
    this.status = status;
    this.sent = sent;
    this.aborted = aborted;
  }
}

/** Starts a unary call on the hop's star: in process, on its bare session, else through grpc-js. */
function startOn<Req, Res>(
  hop: Hop,
  def: MethodDefinition<Req, unknown, unknown, Res>,
  request: Req,
  ended: (end: UnaryEnd<Res>) => void,
): { cancel(): void } {
  const { metadata, deadline } = hop;
  if (hop.inProcess) return startInProcess(hop.inProcess, def, request, metadata, deadline, ended);
  const session = hop.lease.bare();
  if (session) return startUnary(session, def, request, metadata, deadline, ended);
  return hop.lease.client.makeUnaryRequest(
    def.path,
    def.requestSerialize,
    def.responseDeserialize,
    request,
    metadata,
    { deadline },
    (err, response) =>
      ended({
        status: err ?? { code: grpc.status.OK, details: "OK", metadata: new grpc.Metadata() },
        sent: true,
        ...(response === undefined ? {} : { response }),
      }),
  );
}

export class FleetClient {
  readonly #seeds: readonly [string, ...string[]];
  readonly #maxHops: number;
  readonly #deadlines: Partial<Record<Method, number>>;
  readonly #callDeadlineMs: number;
  readonly #healthDeadlineMs: number;
  readonly #observer: FleetObserver;
  readonly #pool: ChannelPool;
  readonly #leaders: LeaderCache;
  readonly #inProcess: FleetClientOptions["inProcess"];
  /** Seeds whose last call failed with UNAVAILABLE: the round-robin passes them over. */
  readonly #suspect = new Set<string>();
  /** Calls in flight, cancelled by close(). */
  readonly #calls = new Set<{ cancel(): void }>();
  #cursor = 0;
  #closed = false;

  constructor(options: FleetClientOptions) {
    const [first, ...rest] = options.stars;
    if (first === undefined) {
      throw new FleetError("no_stars", "no star addresses configured: give at least one HOST:PORT");
    }
    this.#seeds = [first, ...rest];
    this.#maxHops = options.maxHops ?? DEFAULT_MAX_HOPS;
    if (!Number.isInteger(this.#maxHops) || this.#maxHops < 0) {
      throw new RangeError(`maxHops must be a non-negative integer, got ${this.#maxHops}`);
    }
    this.#deadlines = { ...DEFAULT_DEADLINES, ...options.deadlines };
    this.#callDeadlineMs = options.callDeadlineMs ?? DEFAULT_CALL_DEADLINE_MS;
    this.#healthDeadlineMs = options.healthDeadlineMs ?? DEFAULT_HEALTH_DEADLINE_MS;
    this.#observer = options.observer ?? {};
    this.#pool = new ChannelPool({
      maxChannels: options.maxChannels,
      keepalive: options.keepalive,
    });
    this.#leaders = new LeaderCache(options.maxLeaders);
    this.#inProcess = options.inProcess;
  }

  /** Calls a unary verb; rejects with a StarCallError (a gRPC status) or a FleetError. */
  unary<M extends UnaryMethod>(
    method: M,
    request: RequestOf<M>,
    opts: CallOptions = {},
  ): Promise<ResponseOf<M>> {
    const def = SERVICE[method] as MethodDefinition<RequestOf<M>, unknown, unknown, ResponseOf<M>>;
    const stream = streamOf(request, opts);
    const lane = laneOf(method, request);
    return this.#route(
      method,
      stream,
      opts,
      replayable(method, request),
      lane,
      (hop) =>
        new Promise((resolve, reject) => {
          const settle = (
            status: HopFailure["status"],
            sent: boolean,
            response: ResponseOf<M> | undefined,
          ) => {
            end(status.code);
            if (status.code === grpc.status.OK) resolve(response as ResponseOf<M>);
            else reject(new HopFailure(status, sent, opts.signal?.aborted === true));
          };
          const call = startOn(hop, def, request, (e) => settle(e.status, e.sent, e.response));
          const end = this.#watch(method, hop, call, opts.signal);
        }),
    );
  }

  /**
   * Starts a Subscribe on the stream's leader if known, else a seed (any star serves reads).
   * The call is grpc-js's own; when it ends with NotOwner or UNAVAILABLE the client learns
   * from it, so a re-subscribe from the caller's cursor lands on the right star.
   */
  subscribe(request: SubscribeRequest, opts: CallOptions = {}): Promise<SubscribeCall> {
    const def = SERVICE.Subscribe;
    const stream = streamOf(request, opts);
    return this.#route("Subscribe", stream, opts, true, "subscriptions", async (hop) => {
      const call = hop.lease.client.makeServerStreamRequest(
        def.path,
        def.requestSerialize,
        def.responseDeserialize,
        request,
        hop.metadata,
        { deadline: hop.deadline },
      );
      this.#watchStream("Subscribe", hop, call, stream, opts.signal);
      return call;
    });
  }

  /**
   * Opens an AppendSession: sends the open frame and resolves once the star answers `opened`,
   * redialing the leader a NotOwner names. The caller then writes batch frames and reads acks
   * from `call` (the opened frame is already consumed) and half-closes when done.
   */
  openAppendSession(open: AppendSessionOpen, opts: CallOptions = {}): Promise<AppendSession> {
    const def = SERVICE.AppendSession;
    const stream = streamOf(open, opts);
    // Nothing is appended before `opened`, so the handshake can always go elsewhere.
    return this.#route("AppendSession", stream, opts, true, "calls", (hop) => {
      return new Promise((resolve, reject) => {
        // No gRPC deadline: it would end the whole session. hop.deadline bounds the handshake.
        const call = hop.lease.client.makeBidiStreamRequest(
          def.path,
          def.requestSerialize,
          def.responseDeserialize,
          hop.metadata,
        );
        this.#watchStream("AppendSession", hop, call, stream, opts.signal);
        const address = hop.lease.address;
        const settle = () => {
          clearTimeout(timer);
          call.off("readable", onReadable);
          call.off("error", onError);
          call.off("end", onEnd);
        };
        const fail = (status: { code: grpc.status; details: string }) => {
          settle();
          call.cancel();
          reject(new HopFailure(status, true, false));
        };
        // 'readable' and read() take exactly the first frame; acks stay buffered for the caller.
        const onReadable = () => {
          const frame = call.read() as AppendSessionResponse__Output | null;
          if (frame === null) return;
          if (!frame.opened) {
            fail({ code: grpc.status.INTERNAL, details: `star sent ${frame.frame} before opened` });
            return;
          }
          settle();
          resolve({ call, opened: frame.opened, address });
        };
        const onError = (err: grpc.ServiceError) => {
          settle();
          reject(new HopFailure(err, true, opts.signal?.aborted === true));
        };
        const onEnd = () =>
          fail({
            code: grpc.status.INTERNAL,
            details: "star ended the session without opening it",
          });
        const timer = Number.isFinite(hop.deadline)
          ? setTimeout(
              () =>
                fail({
                  code: grpc.status.DEADLINE_EXCEEDED,
                  details: "no opened frame before the deadline",
                }),
              Math.max(0, hop.deadline - Date.now()),
            )
          : undefined;
        call.on("readable", onReadable);
        call.on("error", onError);
        call.on("end", onEnd);
        call.write({ open });
      });
    });
  }

  /** Asks one star, or every seed, whether it is ready, and what each answered. */
  async health(address?: string, opts: { deadlineMs?: number } = {}): Promise<FleetHealth> {
    const deadline = Date.now() + (opts.deadlineMs ?? this.#healthDeadlineMs);
    const targets = address === undefined ? this.#seeds : [address];
    const stars = await Promise.all(targets.map((a) => this.#starHealth(a, deadline)));
    return { ready: stars.some((s) => s.ready), stars };
  }

  /**
   * Whether the fleet is ready: true once any seed says it is, without waiting for the rest (a
   * star that hangs would hold every balancer's check to the deadline); false once every seed
   * has said not, or failed to answer by the deadline.
   */
  async ready(opts: { deadlineMs?: number } = {}): Promise<boolean> {
    const deadline = Date.now() + (opts.deadlineMs ?? this.#healthDeadlineMs);
    const answers = this.#seeds.map(async (address) => {
      if (!(await this.#starHealth(address, deadline)).ready) throw new Error("not ready");
      return true;
    });
    return Promise.any(answers).catch(() => false);
  }

  /** Cancels the calls in flight and closes every channel. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    for (const call of this.#calls) call.cancel();
    this.#pool.close();
  }

  /**
   * Runs `attempt` on the cached leader or a seed, then follows NotOwner redirects and moves
   * off unavailable stars while the hop budget lasts. `replayable`: sending the request twice
   * is harmless, so it may go elsewhere after a started call failed with UNAVAILABLE.
   */
  async #route<T>(
    method: Method,
    stream: StreamRef | undefined,
    opts: CallOptions,
    replayable: boolean,
    lane: Lane,
    attempt: (hop: Hop) => Promise<T>,
  ): Promise<T> {
    const deadline =
      Date.now() + (opts.deadlineMs ?? this.#deadlines[method] ?? this.#callDeadlineMs);
    const failed = new Set<string>();
    const hops: string[] = [];
    let address =
      (stream && this.#leaders.get(stream.bucket, stream.key)) ?? this.#pickSeed(failed);
    for (let retries = 0; ; retries++) {
      hops.push(address);
      let failure: HopFailure;
      try {
        const result = await this.#hop(method, address, lane, deadline, opts, attempt);
        this.#suspect.delete(address);
        return result;
      } catch (err) {
        if (!(err instanceof HopFailure)) throw err;
        failure = err;
      }
      const { sent } = failure;
      const undecided = sent && !replayable;
      if (failure.aborted) throw abortError(method, address, opts.signal?.reason, undecided);
      // A call close() cancelled stays cancelled: the gateway is stopping, not the star.
      const status = hopStatus(failure.status, this.#closed);

      const leader = notOwnerLeader(status);
      if (leader !== undefined) {
        this.#suspect.delete(address);
        if (leader === "") {
          throw new FleetError(
            "leader_unknown",
            `${method}: star ${address} is not the stream's leader and named none; retry shortly`,
            { hops },
          );
        }
        if (failed.has(leader)) {
          const named = findDetail(status.metadata, "NotOwner")?.leader_id;
          throw new FleetError(
            "leader_unreachable",
            `${method}: the stream's leader ${named ? `${named} (${leader})` : leader} is unreachable ` +
              `(star ${address} names it, and it did not answer); this is retryable: retry shortly`,
            { hops },
          );
        }
        if (stream) this.#leaders.set(stream.bucket, stream.key, leader);
        if (retries >= this.#maxHops) {
          throw new FleetError(
            "redirects_exhausted",
            `${method}: still redirected after ${this.#maxHops} hops (${[...hops, leader].join(" -> ")}); ` +
              "the stream's ownership is moving or the stars disagree on the fleet; retry shortly",
            { hops },
          );
        }
        this.#observer.onRedirect?.(method);
        address = leader;
        continue;
      }

      if (findDetail(status.metadata, "LogDamaged")) {
        // The star is up and answered: the records are in a damaged log, which every star
        // reads alike, and it did nothing. Its answer names the object for the client.
        this.#suspect.delete(address);
        throw new StarCallError(status, { method, address, outcomeUnknown: false });
      }
      if (status.code === grpc.status.UNAVAILABLE) {
        this.#leaders.forgetAddress(address);
        if (this.#seeds.includes(address)) this.#suspect.add(address);
        failed.add(address);
        const exhausted = retries >= this.#maxHops || this.#seeds.every((s) => failed.has(s));
        if (undecided || exhausted) {
          throw new StarCallError(status, { method, address, outcomeUnknown: undecided });
        }
        address = this.#pickSeed(failed);
        continue;
      }

      if (status.code !== grpc.status.DEADLINE_EXCEEDED) this.#suspect.delete(address);
      throw new StarCallError(status, {
        method,
        address,
        outcomeUnknown: undecided && UNDECIDED.has(status.code),
      });
    }
  }

  /** One attempt on one star: waits for its channel unless it is connected, then starts the call. */
  #hop<T>(
    method: Method,
    address: string,
    lane: Lane,
    deadline: number,
    opts: CallOptions,
    attempt: (hop: Hop) => Promise<T>,
  ): Promise<T> {
    // First: a credential grpc-js would refuse fails the call before it takes a connection.
    const metadata = metadataOf(method, opts);
    const lease = this.#pool.acquire(address, lane);
    const started = performance.now();
    const local = this.#inProcess;
    const inProcess =
      local?.address === address && local.star.serves(SERVICE[method].path)
        ? local.star
        : undefined;
    if (inProcess && !opts.signal?.aborted) {
      return attempt({ lease, inProcess, deadline, metadata, started });
    }
    const channel = lease.client.getChannel();
    // A connected channel (the usual case) needs no wait: skipping awaitReady saves promises, an
    // abort listener and a deadline timer per call. An aborted signal still goes through it.
    if (
      channel.getConnectivityState(false) === grpc.connectivityState.READY &&
      !opts.signal?.aborted
    ) {
      return attempt({ lease, deadline, metadata, started });
    }
    return this.#hopWhenReady(method, address, lease, started, deadline, opts, metadata, attempt);
  }

  /** #hop on a channel not yet connected: waits until it is, fails, the deadline or an abort. */
  async #hopWhenReady<T>(
    method: Method,
    address: string,
    lease: Lease,
    started: number,
    deadline: number,
    opts: CallOptions,
    metadata: grpc.Metadata,
    attempt: (hop: Hop) => Promise<T>,
  ): Promise<T> {
    const readiness = await awaitReady(lease.client.getChannel(), deadline, opts.signal);
    if (this.#closed) {
      lease.release();
      throw new FleetError("closed", "the fleet client is closed");
    }
    if (readiness === "ready") {
      return attempt({ lease, deadline, metadata, started });
    }
    lease.release();
    const status = notReadyStatus(readiness, address);
    this.#observer.onCall?.(method, statusName(status.code), performance.now() - started);
    throw new HopFailure(status, false, readiness === "aborted");
  }

  /**
   * Ties a started call to the signal and to close(); the returned function records its end
   * (metrics, lease) once.
   */
  #watch(
    method: Method,
    hop: Hop,
    call: { cancel(): void },
    signal: AbortSignal | undefined,
  ): (code: grpc.status) => void {
    const cancel = () => call.cancel();
    signal?.addEventListener("abort", cancel, { once: true });
    this.#calls.add(call);
    let ended = false;
    return (code) => {
      if (ended) return;
      ended = true;
      signal?.removeEventListener("abort", cancel);
      this.#calls.delete(call);
      hop.lease.release();
      this.#observer.onCall?.(method, statusName(code), performance.now() - hop.started);
    };
  }

  /** #watch for a streaming call, which also teaches the client where the stream lives. */
  #watchStream(
    method: StreamingMethod,
    hop: Hop,
    call: grpc.ClientReadableStream<unknown> | AppendSessionCall,
    stream: StreamRef | undefined,
    signal: AbortSignal | undefined,
  ): void {
    const end = this.#watch(method, hop, call, signal);
    call.on("status", (status: grpc.StatusObject) => {
      end(status.code);
      const leader = notOwnerLeader(status);
      if (stream && leader) this.#leaders.set(stream.bucket, stream.key, leader);
      if (status.code === grpc.status.UNAVAILABLE) this.#leaders.forgetAddress(hop.lease.address);
    });
    // The caller sees errors through its own listener or iterator; this one only keeps a
    // failure nobody listens for from crashing the process ('status' above records it).
    call.on("error", () => {});
  }

  /** The next seed in round-robin order, preferring ones not suspected down; not `exclude`d. */
  #pickSeed(exclude: ReadonlySet<string>): string {
    const n = this.#seeds.length;
    let fallback: number | undefined;
    for (let i = 0; i < n; i++) {
      const index = (this.#cursor + i) % n;
      const seed = this.#seeds[index] as string;
      if (exclude.has(seed)) continue;
      if (!this.#suspect.has(seed)) {
        this.#cursor = index + 1;
        return seed;
      }
      fallback ??= index;
    }
    const index = fallback ?? this.#cursor % n;
    this.#cursor = index + 1;
    return this.#seeds[index] as string;
  }

  #starHealth(address: string, deadline: number): Promise<StarHealth> {
    const lease = this.#pool.acquire(address);
    return new Promise((resolve) => {
      lease.client.makeUnaryRequest(
        HEALTH.path,
        HEALTH.requestSerialize,
        HEALTH.responseDeserialize,
        {},
        new grpc.Metadata(),
        { deadline },
        (err, response) => {
          lease.release();
          if (err && REFUSED_CREDENTIALS.has(err.code)) {
            // A star with a signing key guards its admin plane and the gateway holds no admin
            // credential: the refusal still shows the star up and serving (docs/operating.md).
            resolve({ address, ready: true, error: err.details });
          } else if (err || !response) {
            resolve({ address, ready: false, error: err?.details ?? "empty response" });
          } else {
            resolve({ address, ready: response.ready, star_id: response.star_id });
          }
        },
      );
    });
  }
}

/** Health answers that say who may ask, not how the star is. */
const REFUSED_CREDENTIALS: ReadonlySet<grpc.status> = new Set([
  grpc.status.UNAUTHENTICATED,
  grpc.status.PERMISSION_DENIED,
]);

function streamOf(request: object, opts: CallOptions): StreamRef | undefined {
  const fields = request as { bucket?: unknown; key?: unknown };
  const bucket = opts.bucket ?? fields.bucket;
  const key = opts.key ?? fields.key;
  if (typeof bucket !== "string" || typeof key !== "string" || bucket === "" || key === "") {
    return undefined;
  }
  return { bucket, key };
}

/** Whether sending the request twice is harmless. */
function replayable(method: UnaryMethod, request: object): boolean {
  if (method === "Append") return false;
  if (method === "CreateStream" || method === "CreateBucket") {
    return Boolean((request as { creation_token?: string }).creation_token);
  }
  return true;
}

/** Shared by every call without credentials: grpc-js clones a call's metadata when it starts. */
const NO_METADATA = new grpc.Metadata();

/** What a metadata value may hold (grpc-js refuses anything else): visible ASCII and spaces. */
const METADATA_VALUE = /^[\x20-\x7e]*$/;

function metadataOf(method: string, opts: CallOptions): grpc.Metadata {
  if (!opts.authorization) return NO_METADATA;
  if (!METADATA_VALUE.test(opts.authorization)) {
    // Never quoted: it is a credential, and grpc-js's own refusal would put it in the logs.
    throw new StarCallError(
      {
        code: grpc.status.UNAUTHENTICATED,
        details:
          "the credential (Authorization, or access_token) holds characters no token has (a token is visible ASCII): send it as it was issued",
      },
      { method },
    );
  }
  const metadata = new grpc.Metadata();
  metadata.set("authorization", opts.authorization);
  return metadata;
}

function notReadyStatus(
  readiness: Exclude<Readiness, "ready">,
  address: string,
): { code: grpc.status; details: string } {
  switch (readiness) {
    case "unreachable":
      return { code: grpc.status.UNAVAILABLE, details: `cannot connect to star ${address}` };
    case "deadline":
      return {
        code: grpc.status.DEADLINE_EXCEEDED,
        details: `deadline passed while connecting to star ${address}`,
      };
    case "aborted":
      return { code: grpc.status.CANCELLED, details: "cancelled before the call started" };
  }
}
