// A worker's stop requests come two ways: the primary passes its signal on over IPC, and a signal
// sent to the whole process group (systemd, a terminal) reaches the worker itself as well, in
// either order. One SIGTERM from each way is one stop; SIGTERM again from the same way, or any
// SIGINT, hurries the drain, as a second signal does for a lone gateway.
import type { StopSignal } from "./messages.ts";

export type StopSource = "signal" | "primary";

export class StopRequests {
  readonly #stop: (signal: StopSignal) => void;
  readonly #seen = new Set<StopSource>();

  /** `stop` is the gateway's: its first call drains, each later one hurries the drain. */
  constructor(stop: (signal: StopSignal) => void) {
    this.#stop = stop;
  }

  request(signal: StopSignal, source: StopSource): void {
    const first = this.#seen.size === 0;
    const again = this.#seen.has(source);
    this.#seen.add(source);
    if (signal === "SIGINT" || first || again) this.#stop(signal);
  }
}
