// Real Chromium (playwright-core driving Debian's /usr/bin/chromium): a page served by this test
// from another origin than the gateway appends with fetch (CORS) and follows with EventSource.
// It must receive every record in order, and resume by itself when the gateway restarts on the
// same port (a drain: the final `retry:`, then a dropped connection, then Last-Event-ID).
import assert from "node:assert/strict";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { type Browser, chromium } from "playwright-core";
import { type Gateway, inProcessGateway } from "../harness/gateway.ts";
import { newStream } from "../harness/http.ts";
import { type StarProcess, startStarProcess } from "../harness/star-process.ts";
import { systemTool } from "../harness/system-tool.ts";

const chromiumTool = systemTool("/usr/bin/chromium", "chromium");

/** What sse-page.html keeps on its window (this project has no DOM types: globalThis is it). */
interface PageState {
  received: [number, string][];
  opens: number;
  lastEventId: string;
  appendRange(from: number, to: number): Promise<void>;
}

describe("Chromium", () => {
  let dir: string | undefined;
  let star: StarProcess;
  let gw: Gateway | undefined;
  let page: Server | undefined;
  let pageOrigin: string;
  let browser: Browser;

  before(async () => {
    if (chromiumTool.skip) return;
    dir = await mkdtemp(join(tmpdir(), "nova-browser-"));
    const html = await readFile(join(import.meta.dirname, "sse-page.html"));
    const server = createServer((_req, res) => {
      res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
      res.end(html);
    });
    page = server;
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const address = server.address();
    pageOrigin = `http://localhost:${typeof address === "object" && address ? address.port : 0}`;
    star = await startStarProcess(["--data-dir", dir]);
    gw = await inProcessGateway([star.address], { corsOrigins: [pageOrigin] });
    browser = await chromium.launch({
      executablePath: chromiumTool.path,
      args: ["--no-sandbox"],
      headless: true,
    });
  });
  after(async () => {
    await browser?.close();
    await gw?.close();
    const server = page;
    if (server) await new Promise((resolve) => server.close(resolve));
    star?.client.close();
    await star?.proc.kill("SIGTERM");
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  test("a cross-origin page appends with fetch and follows with EventSource across a gateway restart", {
    skip: chromiumTool.skip,
  }, async () => {
    const gateway = gw as Gateway;
    const stream = await newStream(gateway.base);
    const tab = await browser.newPage();
    const pageErrors: string[] = [];
    tab.on("pageerror", (e) => pageErrors.push(String(e)));
    await tab.goto(
      `${pageOrigin}/?gateway=${encodeURIComponent(gateway.base)}&stream=${encodeURIComponent(stream)}`,
    );
    await tab.waitForFunction(() => (globalThis as unknown as PageState).opens === 1);

    await tab.evaluate(() => (globalThis as unknown as PageState).appendRange(0, 20));
    await tab.waitForFunction(() => (globalThis as unknown as PageState).received.length === 20);

    // Restart the gateway on the same port: it drains (a final retry:), drops the connection, and
    // comes back; EventSource reconnects with Last-Event-ID by itself.
    const port = new URL(gateway.base).port;
    await gateway.close();
    gw = undefined;
    gw = await inProcessGateway([star.address], { corsOrigins: [pageOrigin] }, Number(port));
    await tab.waitForFunction(() => (globalThis as unknown as PageState).opens === 2, null, {
      timeout: 30_000,
    });

    await tab.evaluate(() => (globalThis as unknown as PageState).appendRange(20, 40));
    await tab.waitForFunction(() => (globalThis as unknown as PageState).received.length >= 40);

    const state = await tab.evaluate(() => {
      const w = globalThis as unknown as PageState;
      return { received: w.received, lastEventId: w.lastEventId };
    });
    assert.deepEqual(
      state.received,
      Array.from({ length: 40 }, (_, i) => [i, String(i)]),
    );
    assert.match(state.lastEventId, /^39,40,\d+$/);
    assert.deepEqual(pageErrors, []);
    await tab.close();
  });
});
