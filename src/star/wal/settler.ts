// The settler: in the background, moves the records of the streams the settle policy picks from
// the star's log into chunk objects (a few streams at a time), then deletes the log objects that
// are all settled. SettleStar settles every stream at once.
import type { Logger } from "pino";
import { unlessRunning } from "../../platform/concurrency/index.ts";
import type { StreamRegistry } from "../stream/registry.ts";
import type { StreamLog } from "../stream/stream-log.ts";
import type { CommitLog } from "./commit-log.ts";
import { type SettlePolicy, streamsToSettle } from "./settle-policy.ts";

/** Streams settled at once: chunk PUTs in flight. */
const CONCURRENCY = 8;

export interface StreamSettled {
  log: StreamLog;
  records: number;
  bytes: number;
  chunks: number;
}

export class Settler {
  readonly #registry: StreamRegistry;
  readonly #wal: CommitLog;
  readonly #policy: SettlePolicy;
  readonly #log: Logger;
  /** Chunk objects written by settling since the start. */
  chunks = 0;

  constructor(registry: StreamRegistry, wal: CommitLog, policy: SettlePolicy, log: Logger) {
    this.#registry = registry;
    this.#wal = wal;
    this.#policy = policy;
    this.#log = log;
  }

  /** One round of the policy; a call while a round runs does nothing. */
  readonly round = unlessRunning(() => this.#settleDue());

  async #settleDue(): Promise<void> {
    const logs = await this.#registry.openLogs();
    const byId = new Map(logs.map((l) => [l.descriptor.stream_id, l]));
    const due = streamsToSettle(
      logs.map((l) => ({ id: l.descriptor.stream_id, ...l.unsettled })),
      Date.now(),
      this.#policy,
    );
    await this.#settleEach(due.flatMap((id) => byId.get(id) ?? []));
  }

  /** Settles everything acked so far on every stream this star holds open. */
  async settleAll(): Promise<StreamSettled[]> {
    const logs = (await this.#registry.openLogs()).filter((l) => l.unsettled.records > 0);
    return this.#settleEach(logs);
  }

  async #settleEach(logs: StreamLog[]): Promise<StreamSettled[]> {
    const out: StreamSettled[] = [];
    const failures: unknown[] = [];
    let next = 0;
    const worker = async () => {
      while (next < logs.length) {
        const log = logs[next++] as StreamLog;
        try {
          const done = await log.settle();
          this.chunks += done.chunks;
          if (done.records > 0) out.push({ log, ...done });
        } catch (err) {
          failures.push(err);
          this.#log.warn({ err, stream: log.descriptor.stream_id }, "settling failed; retried");
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(CONCURRENCY, logs.length) }, worker));
    await this.#wal.deleteSettled();
    if (failures.length > 0) throw failures[0];
    return out;
  }
}
