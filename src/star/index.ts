// The reference star as a library: what the gateway's embedded mode composes (src/main.ts).

export { EMBEDDED_LOG_COMMIT_INTERVAL_MS } from "./limits.ts";
export { type RunningStar, type StarOptions, startStar } from "./star.ts";
export { type OpenStorage, openStorage } from "./storage/open-storage.ts";
