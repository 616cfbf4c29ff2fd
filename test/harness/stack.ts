// The usual integration setup: a temp directory, one star process storing in it, and a gateway
// in front of that star. Whatever started is stopped by close(), and by the start itself when a
// later part fails to come up.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Gateway, type InProcessOptions, inProcessGateway } from "./gateway.ts";
import { type GatewayProcess, gatewayProcess } from "./gateway-process.ts";
import { type StarProcess, startStarProcess } from "./star-process.ts";

export interface Stack<G> {
  dir: string;
  star: StarProcess;
  gw: G;
  /** Stops the gateway, then the star (SIGTERM), then removes the directory. */
  close(): Promise<void>;
}

export interface StackOptions {
  /** More star flags (its storage is `--data-dir` in the stack's directory). */
  starArgs?: string[];
}

async function startWith<G extends { close(): Promise<void> }>(
  prefix: string,
  starArgs: string[],
  startGateway: (stars: string[]) => Promise<G>,
): Promise<Stack<G>> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  let star: StarProcess | undefined;
  let gw: G | undefined;
  const close = async () => {
    await gw?.close();
    star?.client.close();
    await star?.proc.kill("SIGTERM");
    await rm(dir, { recursive: true, force: true });
  };
  try {
    star = await startStarProcess(["--data-dir", dir], { args: starArgs });
    gw = await startGateway([star.address]);
  } catch (err) {
    await close();
    throw err;
  }
  return { dir, star, gw, close };
}

/**
 * A star and the gateway app in this process (`prefix` names the temp directory); `port` for a
 * gateway restarted on its port (a `freePort()`), else one the kernel picks.
 */
export function startStack(
  prefix: string,
  options: StackOptions & { gateway?: InProcessOptions; port?: number } = {},
): Promise<Stack<Gateway>> {
  return startWith(prefix, options.starArgs ?? [], (stars) =>
    inProcessGateway(stars, options.gateway, options.port),
  );
}

/** A star and `src/main.ts` as a child process with `gatewayArgs`. */
export function startProcessStack(
  prefix: string,
  options: StackOptions & { gatewayArgs?: string[] } = {},
): Promise<Stack<GatewayProcess>> {
  return startWith(prefix, options.starArgs ?? [], (stars) =>
    gatewayProcess(stars, options.gatewayArgs),
  );
}
