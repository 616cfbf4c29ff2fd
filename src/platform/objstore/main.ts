// `npm run objstore`: an S3-compatible server (s3rver) on a local directory, for development
// and tests. Prints its URL on one stdout line when ready; SIGTERM or SIGINT stop it.
import { parseProcessFlags } from "../cli/index.ts";
import { flags, PROGRAM, SUMMARY } from "./flags.ts";
import { startS3rver } from "./s3rver-server.ts";

const opts = parseProcessFlags(flags, PROGRAM, SUMMARY);

try {
  const server = await startS3rver({
    host: opts.host,
    port: opts.port,
    dataDir: opts.dataDir,
    buckets: opts.bucket,
  });
  let stopping = false;
  const stop = (signal: NodeJS.Signals): void => {
    if (stopping) {
      // A second signal: the user is not waiting for a graceful stop.
      process.exit(1);
    }
    stopping = true;
    server.close().then(
      () => process.exit(0),
      (err: unknown) => {
        console.error(`objstore: stopping on ${signal} failed: ${String(err)}`);
        process.exit(1);
      },
    );
  };
  process.on("SIGTERM", stop);
  process.on("SIGINT", stop);
  process.stdout.write(`${server.url}\n`);
} catch (err) {
  console.error(`objstore: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
}
