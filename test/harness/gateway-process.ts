// `src/main.ts` as a child process: in front of given stars, or with its embedded star and object
// storage (`npm start`'s entry). Apart from the in-process gateway (gateway.ts), so a test file
// starting only processes does not load the gateway's code itself (about 0.7 s of CPU).
import { rssBytes } from "./proc-stats.ts";
import { nodeArgs, type RunningProcess, startProcess } from "./process.ts";

export interface GatewayProcess {
  base: string;
  proc: RunningProcess;
  /** The gateway process's resident set size now, bytes (from /proc). */
  rss(): number;
  close(): Promise<void>;
}

/**
 * `src/main.ts` as a child process in front of `stars`, with more flags. Without a `--port` of
 * its own it takes a free one; without a `--drain-delay-ms` it drains with no delay (nothing in
 * front of it needs one).
 */
export async function gatewayProcess(
  stars: string[],
  args: string[] = [],
  logLevel = "warn",
): Promise<GatewayProcess> {
  const [command, argv] = nodeArgs("src/main.ts", [
    ...(args.includes("--port") ? [] : ["--port", "0"]),
    "--stars",
    stars.join(","),
    "--log-level",
    logLevel,
    ...(args.includes("--drain-delay-ms") ? [] : ["--drain-delay-ms", "0"]),
    ...args,
  ]);
  const proc = await startProcess({
    command,
    args: argv,
    readyLine: /^nova-gateway listening on (https?:\/\/\S+)$/,
  });
  const pid = proc.child.pid as number;
  return {
    base: proc.match[1] as string,
    proc,
    rss: () => rssBytes(pid),
    async close() {
      await proc.kill("SIGTERM");
    },
  };
}

/**
 * `npm start`'s entry as a child process: an embedded star and object storage in `dataDir`.
 * Without a `--drain-delay-ms` of its own it drains with no delay.
 */
export async function embeddedGateway(
  dataDir: string,
  more: string[] = [],
): Promise<{ url: string; proc: RunningProcess }> {
  const [command, args] = nodeArgs("src/main.ts", [
    ...["--port", "0", "--data-dir", dataDir, "--log-level", "warn"],
    ...(more.includes("--drain-delay-ms") ? [] : ["--drain-delay-ms", "0"]),
    ...more,
  ]);
  const proc = await startProcess({
    command,
    args,
    readyLine: /^nova-gateway listening on (http:\/\/\S+)$/,
  });
  return { url: proc.match[1] as string, proc };
}
