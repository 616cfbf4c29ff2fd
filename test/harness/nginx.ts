// nginx (Debian's package) in front of gateways as a shared cache: `proxy_cache` with
// `proxy_cache_lock` (concurrent misses of one URL wait for the first), keep-alive to the
// upstream, and an `x-cache-status` header saying whether a response came from the cache.
// One `server` block, on a port of its own, per gateway. Started in the foreground by the test.
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { freePort } from "./ports.ts";
import { type RunningProcess, startProcess } from "./process.ts";
import type { SystemTool } from "./system-tool.ts";
import { waitFor } from "./wait.ts";

export interface Nginx {
  /** One base URL per upstream, in the order given. */
  bases: string[];
  proc: RunningProcess;
  close(): Promise<void>;
}

export async function startNginx(
  tool: SystemTool,
  upstreams: string[],
  dir: string,
): Promise<Nginx> {
  const ports = await Promise.all(upstreams.map(() => freePort()));
  for (const sub of ["cache", "tmp"]) await mkdir(join(dir, sub), { recursive: true });
  const servers = upstreams.map(
    (base, i) => `
  upstream gateway${i} {
    server ${new URL(base).host};
    keepalive 16;
  }
  server {
    listen 127.0.0.1:${ports[i]};
    location / {
      proxy_pass http://gateway${i};
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      # The client's Host, as an app behind nginx keeps it: a gateway on loopback answers only
      # a loopback Host (--allowed-hosts).
      proxy_set_header Host $http_host;
      proxy_cache pages;
      proxy_cache_lock on;
      add_header x-cache-status $upstream_cache_status always;
    }
  }`,
  );
  const config = `
daemon off;
master_process off;
error_log stderr warn;
pid ${join(dir, "nginx.pid")};
events { worker_connections 1024; }
http {
  access_log off;
  client_body_temp_path ${join(dir, "tmp")};
  proxy_temp_path ${join(dir, "tmp")};
  fastcgi_temp_path ${join(dir, "tmp")};
  uwsgi_temp_path ${join(dir, "tmp")};
  scgi_temp_path ${join(dir, "tmp")};
  proxy_cache_path ${join(dir, "cache")} keys_zone=pages:10m max_size=100m inactive=10m use_temp_path=off;
${servers.join("\n")}
}
`;
  const file = join(dir, "nginx.conf");
  await writeFile(file, config);
  // -t checks the file; then the same shell becomes nginx, in the foreground. `-e stderr`: the
  // package's own error log (/var/log/nginx) is not writable by everyone who runs the tests.
  const proc = await startProcess({
    command: "/bin/sh",
    args: [
      "-c",
      `"$0" -q -e stderr -t -p "$1" -c "$2" && echo ready && exec "$0" -e stderr -p "$1" -c "$2"`,
      tool.path,
      dir,
      file,
    ],
    readyLine: /^ready$/,
  });
  const bases = ports.map((port) => `http://127.0.0.1:${port}`);
  try {
    await waitFor(
      async () => {
        try {
          await fetch(`${bases[0]}/livez`).then((res) => res.arrayBuffer());
          return true;
        } catch {
          return false;
        }
      },
      { message: "nginx to listen" },
    );
  } catch (err) {
    await proc.kill("SIGTERM");
    throw err;
  }
  return {
    bases,
    proc,
    async close() {
      await proc.kill("SIGTERM");
    },
  };
}
