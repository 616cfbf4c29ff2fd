// Fencing against a real commit log whose PUTs land in any order, some failing before or after
// they land (so the log voids their numbers itself), fenced by another member or by its own
// restart: whatever the interleaving, every commit the log acknowledges, before the fence or
// after it, is in a log object present when the fence ends (so the replay that follows reads it).
import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import { decodeLogObject, decodeLogVoid, type LogEntry } from "../../contract/codec/index.ts";
import { createMemoryStore, type PutCondition } from "../../platform/objstore/index.ts";
import { withMethods } from "../../platform/objstore/store-overrides.test-helper.ts";
import { firstLogNumber, logPrefix } from "../storage/keys.ts";
import { CommitLog } from "../wal/commit-log.ts";
import { fenceLog } from "./log-fence.ts";

const entry = (streamId: string): LogEntry => ({
  streamId,
  bucket: "b",
  key: streamId,
  firstSeqNum: 0n,
  records: [{ headers: [], body: Buffer.from("x"), timestampMs: 1n }],
});

const tick = () => new Promise((r) => setImmediate(r));

/** How a gated PUT ends: it lands, it never arrives, or it lands and its answer is lost. */
type Outcome = "lands" | "lost" | "unanswered";

test("after a fence, every commit the log acknowledges is in a log object present at its end", async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.integer({ min: 1, max: 3 }),
      fc.integer({ min: 1, max: 7 }),
      fc.array(
        fc.tuple(fc.nat(), fc.constantFrom<Outcome>("lands", "lands", "lost", "unanswered")),
        {
          minLength: 12,
          maxLength: 12,
        },
      ),
      fc.nat({ max: 12 }),
      fc.constantFrom({ member: "y", epoch: 1 }, { member: "z", epoch: 2 }),
      async (inFlight, commits, picks, fenceAt, fencer) => {
        const inner = createMemoryStore();
        const gates: ((outcome: Outcome) => void)[] = [];
        const store = withMethods(inner, {
          putIf: async (key: string, body: Uint8Array, condition: PutCondition) => {
            if (decodeLogVoid(body)) return inner.putIf(key, body, condition);
            const outcome = await new Promise<Outcome>((r) => gates.push(r));
            if (outcome === "lost") throw new Error("connection reset before the PUT arrived");
            const etag = await inner.putIf(key, body, condition);
            if (outcome === "unanswered") throw new Error("connection reset after the PUT");
            return etag;
          },
        });
        const log = new CommitLog(store, "z", {
          commitIntervalMs: 0,
          maxObjectBytes: 1,
          maxPutsInFlight: inFlight,
        });
        log.begin(firstLogNumber(1));
        const acked: string[] = [];
        let fenced = false;
        const all = Array.from({ length: commits }, (_, i) =>
          log.append(entry(`s${i}`), 1).then(
            () => acked.push(`s${i}`),
            () => undefined,
          ),
        );
        await tick();
        let present: string[] = [];
        for (let step = 0; step <= picks.length; step++) {
          if (step === fenceAt && !fenced) {
            await fenceLog(store, "z", 1, inFlight, fencer);
            fenced = true;
            for (const o of (await inner.list(logPrefix("z"))).objects) {
              const body = (await inner.get(o.key)) as Buffer;
              if (!decodeLogVoid(body))
                present.push(...decodeLogObject(body).map((e) => e.streamId));
            }
          }
          const pick = picks[step];
          if (pick !== undefined && gates.length > 0) {
            gates.splice(pick[0] % gates.length, 1)[0]?.(pick[1]);
            await tick();
            await tick();
          }
        }
        while (gates.length > 0) {
          gates.shift()?.("lands");
          await tick();
        }
        await Promise.all(all);
        if (!fenced) present = acked;
        for (const id of acked)
          assert.ok(present.includes(id), `${id} was acked and is not in the log`);
      },
    ),
    { numRuns: 200 },
  );
});
