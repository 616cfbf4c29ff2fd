// One star as a child process (`src/star/main.ts`), started on a free port and ready to call.
import type { DataPlaneServiceClient } from "../../src/gen/nova/v1/DataPlaneService.ts";
import { dataPlaneClient } from "./grpc.ts";
import { nodeArgs, type RunningProcess, startProcess } from "./process.ts";

export interface StarProcess {
  proc: RunningProcess;
  /** HOST:PORT the star listens on. */
  address: string;
  client: DataPlaneServiceClient;
}

export interface StarProcessOptions {
  /** HOST:PORT to listen on; default 127.0.0.1:0 (a free port). */
  listen?: string;
  /** More flags, e.g. ["--self", "s1", "--fleet", "s1=...,s2=..."]. */
  args?: string[];
}

/** Star storage flags for `bucket` (default `nova`) on an S3 endpoint. */
export const s3Storage = (url: string, bucket = "nova") => [
  "--s3-endpoint",
  url,
  "--s3-bucket",
  bucket,
];

/** `storage` is `["--data-dir", DIR]` or `["--s3-endpoint", URL, "--s3-bucket", NAME]`. */
/** Any key of 32 bytes or more: tests get their tokens by ExchangeToken, never sign their own. */
const TEST_SIGNING_KEY = "a test star's signing key, 32 bytes or more";

/**
 * A star's arguments for auth on (docs/auth.md): a signing key and `apiKeys`, each
 * "NAME SECRET SCOPE...".
 */
export function withApiKeys(apiKeys: string | string[]): string[] {
  const keys = Array.isArray(apiKeys) ? apiKeys.join(",") : apiKeys;
  return ["--signing-key", TEST_SIGNING_KEY, "--api-keys", keys];
}

export async function startStarProcess(
  storage: string[],
  options: StarProcessOptions = {},
): Promise<StarProcess> {
  const [command, args] = nodeArgs("src/star/main.ts", [
    "--listen",
    options.listen ?? "127.0.0.1:0",
    // TEST_STAR_LOG=info shows what a star decided (leases, takeovers) in its stderr().
    "--log-level",
    process.env.TEST_STAR_LOG ?? "warn",
    ...storage,
    ...(options.args ?? []),
  ]);
  const proc = await startProcess({ command, args, readyLine: /listening on (\S+)/ });
  const address = proc.match[1] as string;
  return { proc, address, client: dataPlaneClient(address) };
}
