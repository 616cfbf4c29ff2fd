// How a session waits for a client that has not taken its last write: until the socket drains,
// the response closes, the client has been stalled for the slow-consumer limit, or the session
// is woken (a drain request), whichever comes first. Shared by nova's SSE, S2's SSE and s2s.

/** The response as the wait uses it. */
export interface DrainTarget {
  once(event: "drain" | "close", listener: () => void): unknown;
  off(event: "drain" | "close", listener: () => void): unknown;
}

export type DrainOutcome = "drained" | "closed" | "slow" | "wake";

/** What a wait can be woken through: given the function that ends it, and undefined after. */
export interface Wakeable {
  setWake(wakeUp: (() => void) | undefined): void;
}

/** `waker` (a session's read loop) gets the function that ends the wait with "wake". */
export function awaitDrain(
  out: DrainTarget,
  slowMs: number,
  waker?: Wakeable,
): Promise<DrainOutcome> {
  return new Promise((resolve) => {
    const done = (how: DrainOutcome) => {
      clearTimeout(timer);
      out.off("drain", onDrain);
      out.off("close", onClose);
      waker?.setWake(undefined);
      resolve(how);
    };
    const onDrain = () => done("drained");
    const onClose = () => done("closed");
    const timer = setTimeout(() => done("slow"), slowMs);
    out.once("drain", onDrain);
    out.once("close", onClose);
    waker?.setWake(() => done("wake"));
  });
}
