export interface WaitOptions {
  /** default 10000 */
  timeoutMs?: number;
  /** pause between attempts; default 20 */
  intervalMs?: number;
  /** what was awaited, for the timeout error */
  message?: string;
}

const expiredMark = Symbol("expired");

/**
 * Polls fn until it returns something other than undefined or false, and returns that.
 * A throwing attempt counts as "not yet"; its error is reported if the deadline passes.
 */
export async function waitFor<T>(
  fn: () => Promise<T | undefined | false> | T | undefined | false,
  opts: WaitOptions = {},
): Promise<T> {
  const { timeoutMs = 10_000, intervalMs = 20, message = "condition" } = opts;
  // The monotonic clock: a wall clock stepped forward (NTP, a VM's clock catching up) would end
  // the wait at once, and one stepped back would stretch it.
  const deadline = performance.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    const left = deadline - performance.now();
    // An attempt that hangs must not hold the caller past the deadline.
    let timer: NodeJS.Timeout | undefined;
    const expired = new Promise<typeof expiredMark>((resolve) => {
      timer = setTimeout(() => resolve(expiredMark), Math.max(0, left));
    });
    try {
      const result = await Promise.race([Promise.resolve().then(fn), expired]);
      if (result !== expiredMark && result !== undefined && result !== false) return result as T;
    } catch (err) {
      lastError = err;
    } finally {
      clearTimeout(timer);
    }
    if (performance.now() >= deadline) {
      const why = lastError === undefined ? "" : ` (last error: ${String(lastError)})`;
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${message}${why}`);
    }
    await new Promise((resolve) =>
      setTimeout(resolve, Math.min(intervalMs, deadline - performance.now())),
    );
  }
}
