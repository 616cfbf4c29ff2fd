// The Durable Streams conformance suite (@durable-streams/server-conformance-tests, pinned),
// unchanged, against the gateway at DS_BASE_URL; run by test/ds/conformance-suite.test.ts.
import { runConformanceTests } from "@durable-streams/server-conformance-tests";

const baseUrl = process.env.DS_BASE_URL;
if (!baseUrl) throw new Error("DS_BASE_URL: the gateway's Durable Streams base URL is required");

runConformanceTests({ baseUrl, longPollTimeoutMs: Number(process.env.DS_LONG_POLL_MS ?? 20_000) });
