import { readFileSync } from "node:fs";
import { createServer } from "node:net";

/** Where ports for tests are drawn from: below the range the kernel hands out on its own. */
const FLOOR = 10_000;

/** The first port of the kernel's ephemeral range (what connect() and listen(0) take). */
function ephemeralStart(): number {
  try {
    const [low] = readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8")
      .trim()
      .split(/\s+/);
    const start = Number(low);
    return Number.isInteger(start) && start > FLOOR + 1000 ? start : 32_768;
  } catch {
    return 32_768;
  }
}

const listens = (port: number): Promise<boolean> =>
  new Promise((resolve) => {
    const server = createServer();
    server.once("error", () => resolve(false));
    server.listen(port, "127.0.0.1", () => server.close(() => resolve(true)));
  });

/**
 * A port on 127.0.0.1 that was free a moment ago, for a server that must keep its port across a
 * restart. It lies below the kernel's ephemeral range, so no outgoing connection or `listen(0)`
 * of another test can take it in between; another caller of this function could, at random,
 * one time in thousands. Prefer letting the server listen on port 0 and reading the port it got.
 */
export async function freePort(): Promise<number> {
  const top = ephemeralStart();
  for (let attempt = 0; attempt < 100; attempt++) {
    const port = FLOOR + Math.floor(Math.random() * (top - FLOOR));
    if (await listens(port)) return port;
  }
  throw new Error(`no free port found between ${FLOOR} and ${top} in 100 tries`);
}
