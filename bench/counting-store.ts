// A bench's object store in its own process: s3rver over a directory, behind a loopback proxy
// that counts PUTs. Prints `counting-store listening on URL`; `GET URL/__puts` answers the count.
// Usage: node bench/counting-store.ts DATA_DIR
import { once } from "node:events";
import { Agent, createServer, request } from "node:http";
import type { AddressInfo } from "node:net";
import { startS3rver } from "../src/platform/objstore/index.ts";

const s3 = await startS3rver({ port: 0, dataDir: process.argv[2] as string, buckets: ["nova"] });
const upstream = new URL(s3.url);
const agent = new Agent({ keepAlive: true, maxSockets: 256 });
let puts = 0;
const proxy = createServer((req, res) => {
  if (req.url === "/__puts") {
    res.end(String(puts));
    return;
  }
  if (req.method === "PUT") puts++;
  const out = request(
    {
      host: upstream.hostname,
      port: upstream.port,
      method: req.method,
      path: req.url,
      headers: req.headers,
      agent,
    },
    (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    },
  );
  out.on("error", () => res.destroy());
  req.pipe(out);
});
proxy.listen(0, "127.0.0.1");
await once(proxy, "listening");
process.stdout.write(
  `counting-store listening on http://127.0.0.1:${(proxy.address() as AddressInfo).port}\n`,
);
process.on("SIGTERM", () => {
  proxy.close();
  agent.destroy();
  void s3.close().then(() => process.exit(0));
});
