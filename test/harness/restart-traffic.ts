// Traffic through a balancer while gateways restart behind it: EventSource followers of one
// stream and producers appending to it, each with a short pause between its appends (unpaced,
// they would only load the machine: what a restart is tested for is appends in flight, and the
// producers keep some in flight throughout); then the check that clients saw no error, no gap and
// no duplicate.
import assert from "node:assert/strict";
import { EventSource } from "eventsource";
import { http } from "./http.ts";
import { waitFor } from "./wait.ts";

export interface RestartTraffic {
  /** Appends acked so far. */
  readonly acked: number;
  /** Resolves once every append sent before the call is answered. */
  settled(): Promise<void>;
  /** Stops the producers once their appends in flight are answered. */
  stopProducers(): Promise<void>;
  /**
   * After stopProducers: no append failed, the acked ones hold seq_nums 0 .. n-1 once each, and
   * every follower received exactly them, in order. Closes the followers.
   */
  check(): Promise<void>;
  /** Closes the followers (idempotent): in a finally, so a failed test leaves none reconnecting. */
  close(): void;
}

export function startRestartTraffic(
  base: string,
  stream: string,
  counts: { followers: number; producers: number; pauseMs: number },
): RestartTraffic {
  const followers = Array.from({ length: counts.followers }, () => {
    const es = new EventSource(`${base}${stream}/records?seq_num=0`);
    const state = { bodies: [] as string[], failed: false };
    es.addEventListener("batch", (e) => {
      for (const r of JSON.parse(e.data).records) state.bodies.push(r.body);
    });
    es.addEventListener("error", () => {
      // A reconnect after a drained session is expected; a refused one closes the source.
      if (es.readyState === EventSource.CLOSED) state.failed = true;
    });
    return { es, state };
  });
  const acked = new Map<number, string>();
  const failures: string[] = [];
  const inFlight = new Set<Promise<unknown>>();
  let producing = true;
  const producers = Array.from({ length: counts.producers }, async (_, p) => {
    for (let i = 0; producing; i++) {
      const body = `${p}-${i}`;
      try {
        const sent = http(base, "POST", `${stream}/records`, { records: [{ body }] });
        inFlight.add(sent);
        const res = await sent.finally(() => inFlight.delete(sent));
        if (res.status === 200) acked.set(Number(res.json.start.seq_num), body);
        else failures.push(`append ${body}: ${res.status} ${res.text}`);
      } catch (err) {
        failures.push(`append ${body}: ${(err as Error).message}`);
      }
      if (producing) await new Promise((resolve) => setTimeout(resolve, counts.pauseMs));
    }
  });
  return {
    get acked() {
      return acked.size;
    },
    async settled() {
      await Promise.allSettled([...inFlight]);
    },
    async stopProducers() {
      producing = false;
      await Promise.all(producers);
    },
    async check() {
      try {
        assert.deepEqual(failures, []);
        const count = acked.size;
        // Every acked append landed once, at its own seq_num: together they are 0 .. count-1.
        assert.deepEqual(
          [...acked.keys()].sort((x, y) => x - y),
          Array.from({ length: count }, (_, i) => i),
        );
        const want = Array.from({ length: count }, (_, i) => acked.get(i) as string);
        for (const [i, { state }] of followers.entries()) {
          await waitFor(() => state.bodies.length >= count || state.failed, {
            timeoutMs: 30_000,
            message: `subscriber ${i} to catch up`,
          });
          assert.equal(state.failed, false, `subscriber ${i} gave up`);
          assert.deepEqual(state.bodies, want, `subscriber ${i}`);
        }
      } finally {
        for (const { es } of followers) es.close();
      }
    },
    close() {
      producing = false;
      for (const { es } of followers) es.close();
    },
  };
}
