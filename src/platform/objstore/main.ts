// `npm run objstore`: an S3-compatible server (s3rver) on a local directory, for development
// and tests. Prints its URL on one stdout line when ready; SIGTERM or SIGINT stop it.
import { defineFlags, parseProcessFlags } from "../cli/index.ts";
import { startS3rver } from "./s3rver-server.ts";

const flags = defineFlags(
  {
    host: { type: "string", default: "127.0.0.1", help: "Address to listen on." },
    port: {
      type: "int",
      default: 4568,
      min: 0,
      max: 65535,
      help: "Port to listen on; 0 picks a free one.",
    },
    "data-dir": {
      type: "string",
      required: true,
      help: "Directory holding the buckets and objects; created if missing.",
    },
    bucket: { type: "list", help: "Bucket to create at start unless it exists." },
  },
  { envPrefix: "NOVA_OBJSTORE_" },
);

const opts = parseProcessFlags(
  flags,
  "objstore",
  "Serves the S3 API from a local directory (s3rver), for development and tests.\n" +
    "Prints its URL (http://HOST:PORT) on one line once ready; SIGTERM or SIGINT stop it.",
);

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
