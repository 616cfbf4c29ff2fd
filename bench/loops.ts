// Closed loops of one call each, the way bench:unary-transport and bench:s3-client drive theirs:
// `concurrency` loops call `once` back to back for a second unmeasured, then for `seconds`,
// measured: calls a second and this process's CPU (utime + stime) per call.

export interface LoopFigures {
  perSecond: number;
  cpuUsPerCall: number;
}

const cpuUs = (): number => {
  const usage = process.cpuUsage();
  return usage.user + usage.system;
};

export async function measureLoops(
  concurrency: number,
  seconds: number,
  once: (i: number) => Promise<unknown>,
): Promise<LoopFigures> {
  let next = 0;
  const all = async (s: number): Promise<number> => {
    const deadline = performance.now() + s * 1000;
    let calls = 0;
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (performance.now() < deadline) {
          await once(next++);
          calls++;
        }
      }),
    );
    return calls;
  };
  await all(1);
  const cpu0 = cpuUs();
  const started = performance.now();
  const calls = await all(seconds);
  const elapsed = (performance.now() - started) / 1000;
  return { perSecond: calls / elapsed, cpuUsPerCall: (cpuUs() - cpu0) / calls };
}
