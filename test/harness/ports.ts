import { createServer } from "node:net";

/**
 * A port that was free a moment ago on 127.0.0.1. Another process may take it before it is
 * used: prefer letting the server listen on port 0 and reading the port it got.
 */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}
