// Real Chromium over HTTP/2 with TLS (a self-signed certificate made here, which this Chromium
// is told to accept): a page from another origin follows 20 streams as 20 EventSources at once,
// which over HTTP/1.1 would stall past the browser's six connections per origin. Appends to every
// stream arrive in order; the gateway restarts on the same port and every EventSource resumes
// by itself with Last-Event-ID, with no gap and no duplicate.
import assert from "node:assert/strict";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { type Browser, chromium } from "playwright-core";
import { Agent, setGlobalDispatcher } from "undici";
import { type Gateway, inProcessGateway } from "../harness/gateway.ts";
import { newStream } from "../harness/http.ts";
import { type StarProcess, startStarProcess } from "../harness/star-process.ts";
import { systemTool } from "../harness/system-tool.ts";
import { selfSignedCert, type TestCert } from "../harness/tls.ts";

const chromiumTool = systemTool("/usr/bin/chromium", "chromium");
const openssl = systemTool("/usr/bin/openssl", "openssl");
const skip = chromiumTool.skip ?? openssl.skip;
const STREAMS = 20;
const ROUNDS = 5;

/** What sse-many-page.html keeps on its window (no DOM types here: globalThis is it). */
interface PageState {
  received: [number, string][][];
  opens: number[];
  lastEventIds: string[];
  appendRound(round: number): Promise<void>;
}

describe("Chromium over HTTP/2 with TLS", { skip }, () => {
  let dir: string | undefined;
  let star: StarProcess | undefined;
  let gw: Gateway | undefined;
  let page: Server | undefined;
  let pageOrigin: string;
  let browser: Browser | undefined;
  let cert: TestCert;

  const startGateway = async (port = 0) => {
    gw = await inProcessGateway(
      [(star as StarProcess).address],
      { corsOrigins: [pageOrigin], tls: { cert: cert.cert, key: cert.key } },
      port,
    );
    return gw;
  };

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), "nova-browser-h2-"));
    cert = await selfSignedCert(openssl, dir);
    // The test's own requests (making the streams) trust the certificate too.
    setGlobalDispatcher(new Agent({ connect: { ca: cert.cert } }));
    const html = await readFile(join(import.meta.dirname, "sse-many-page.html"));
    const server = createServer((_req, res) => {
      res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
      res.end(html);
    });
    page = server;
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const address = server.address();
    pageOrigin = `http://localhost:${typeof address === "object" && address ? address.port : 0}`;
    star = await startStarProcess(["--data-dir", dir]);
    await startGateway();
    browser = await chromium.launch({
      executablePath: chromiumTool.path,
      args: ["--no-sandbox", "--ignore-certificate-errors"],
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

  test("20 EventSources on one page, every append in order, resumed across a restart", async () => {
    const gateway = gw as Gateway;
    assert.match(gateway.base, /^https:/);
    const streams: string[] = [];
    for (let i = 0; i < STREAMS; i++) streams.push(await newStream(gateway.base));
    const tab = await (browser as Browser).newPage();
    const pageErrors: string[] = [];
    tab.on("pageerror", (e) => pageErrors.push(String(e)));
    await tab.goto(
      `${pageOrigin}/?gateway=${encodeURIComponent(gateway.base)}&streams=${encodeURIComponent(streams.join(","))}`,
    );
    // All 20 open at once: over HTTP/1.1 the seventh would wait for a free connection.
    await tab.waitForFunction(() =>
      (globalThis as unknown as PageState).opens.every((n) => n === 1),
    );
    for (let round = 0; round < ROUNDS; round++) {
      await tab.evaluate((r) => (globalThis as unknown as PageState).appendRound(r), round);
    }
    await tab.waitForFunction(
      (n) => (globalThis as unknown as PageState).received.every((r) => r.length === n),
      ROUNDS,
    );

    // Restart on the same port: the gateway drains (a final retry:, then GOAWAY), comes back,
    // and every EventSource reconnects with its Last-Event-ID by itself.
    const port = Number(new URL(gateway.base).port);
    await gateway.close();
    gw = undefined;
    await startGateway(port);
    await tab.waitForFunction(
      () => (globalThis as unknown as PageState).opens.every((n) => n === 2),
      null,
      { timeout: 30_000 },
    );
    for (let round = ROUNDS; round < 2 * ROUNDS; round++) {
      await tab.evaluate((r) => (globalThis as unknown as PageState).appendRound(r), round);
    }
    await tab.waitForFunction(
      (n) => (globalThis as unknown as PageState).received.every((r) => r.length >= n),
      2 * ROUNDS,
    );
    const state = await tab.evaluate(() => {
      const w = globalThis as unknown as PageState;
      return { received: w.received, lastEventIds: w.lastEventIds };
    });
    const want = Array.from({ length: 2 * ROUNDS }, (_, i) => [i, String(i)]);
    for (let i = 0; i < STREAMS; i++) {
      assert.deepEqual(state.received[i], want, `stream ${i}`);
      assert.match(
        state.lastEventIds[i] as string,
        new RegExp(`^${2 * ROUNDS - 1},${2 * ROUNDS},\\d+$`),
      );
    }
    assert.deepEqual(pageErrors, []);
    await tab.close();
  });
});
