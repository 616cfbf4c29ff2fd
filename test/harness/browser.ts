// Test support for the Chromium tests: a page server on another origin than the gateway, a star
// process with its own directory, and Debian's Chromium driven by playwright-core. The test
// starts (and restarts) its gateway itself; close() stops the rest, also after a failure.
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Browser, chromium } from "playwright-core";
import { type StarProcess, startStarProcess } from "./star-process.ts";

export interface BrowserRig {
  dir: string;
  star: StarProcess;
  /** The page's origin (`http://localhost:PORT`): another origin than the gateway's. */
  pageOrigin: string;
  browser: Browser;
  close(): Promise<void>;
}

/** Serves `pagePath` on every path, starts a star and Chromium (with `chromiumArgs`). */
export async function startBrowserRig(
  prefix: string,
  pagePath: string,
  chromiumPath: string,
  chromiumArgs: string[] = [],
): Promise<BrowserRig> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  let page: Server | undefined;
  let star: StarProcess | undefined;
  let browser: Browser | undefined;
  const close = async () => {
    await browser?.close();
    const server = page;
    if (server) await new Promise((resolve) => server.close(resolve));
    star?.client.close();
    await star?.proc.kill("SIGTERM");
    await rm(dir, { recursive: true, force: true });
  };
  try {
    const html = await readFile(pagePath);
    const server = createServer((_req, res) => {
      res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
      res.end(html);
    });
    page = server;
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const address = server.address();
    const pageOrigin = `http://localhost:${typeof address === "object" && address ? address.port : 0}`;
    star = await startStarProcess(["--data-dir", dir]);
    browser = await chromium.launch({
      executablePath: chromiumPath,
      args: ["--no-sandbox", ...chromiumArgs],
      headless: true,
    });
    return { dir, star, pageOrigin, browser, close };
  } catch (err) {
    await close();
    throw err;
  }
}
