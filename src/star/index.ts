// The reference star as a library: what the gateway's embedded mode composes (src/main.ts).
export { logCommitIntervalMs } from "./limits.ts";
export { type RunningStar, type StarOptions, startStar } from "./star.ts";
export { type OpenStorage, openStorage } from "./storage/open-storage.ts";
