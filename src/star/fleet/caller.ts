// The incoming call a verb runs for, so that a star passing part of the work to another (the
// stream's leader) can carry the caller's credentials and deadline along without every verb
// function taking them as parameters.
import { AsyncLocalStorage } from "node:async_hooks";
import type { Deadline, Metadata } from "@grpc/grpc-js";

export interface Caller {
  readonly metadata: Metadata;
  readonly deadline: Deadline;
  /** Aborted when the caller cancels: calls passed on for it are cancelled with it. */
  readonly signal?: AbortSignal;
}

const storage = new AsyncLocalStorage<Caller>();

export function withCaller<T>(caller: Caller, fn: () => T): T {
  return storage.run(caller, fn);
}

/** The call being served; undefined outside one (background work). */
export function currentCaller(): Caller | undefined {
  return storage.getStore();
}
