// The object store's flags (`npm run objstore`, src/platform/objstore/main.ts);
// docs/configuration.md is generated from them (`npm run config-docs`).
import { defineFlags } from "../cli/index.ts";

export const PROGRAM = "objstore";
export const SUMMARY =
  "Serves the S3 API from a local directory (s3rver), for development and tests.\n" +
  "Prints its URL (http://HOST:PORT) on one line once ready; SIGTERM or SIGINT stop it.";

export const flags = defineFlags(
  {
    host: { type: "string", default: "127.0.0.1", help: "address to listen on" },
    port: {
      type: "int",
      default: 4568,
      min: 0,
      max: 65535,
      help: "port to listen on (0 picks a free one)",
    },
    "data-dir": {
      type: "string",
      required: true,
      help: "directory holding the buckets and objects (created if missing)",
    },
    bucket: { type: "list", help: "bucket to create at start unless it exists" },
  },
  { envPrefix: "NOVA_OBJSTORE_" },
);
