// Real Chromium over HTTP/2 with TLS (a self-signed certificate made here, which this Chromium
// is told to accept): a page from another origin follows 20 streams as 20 EventSources at once,
// which over HTTP/1.1 would stall past the browser's six connections per origin. Appends to every
// stream arrive in order; the gateway restarts on the same port and every EventSource resumes
// by itself with Last-Event-ID, with no gap and no duplicate.
import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { Agent } from "undici";
import { type BrowserRig, startBrowserRig } from "../harness/browser.ts";
import { type Gateway, inProcessGateway } from "../harness/gateway.ts";
import { useGlobalDispatcher } from "../harness/global-dispatcher.ts";
import { newStream } from "../harness/http.ts";
import { freePort } from "../harness/ports.ts";
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
  let rig: BrowserRig | undefined;
  let gw: Gateway | undefined;
  let cert: TestCert;
  let restoreDispatcher: (() => void) | undefined;

  const startGateway = async (port = 0) => {
    const { star, pageOrigin } = rig as BrowserRig;
    gw = await inProcessGateway(
      [star.address],
      { corsOrigins: [pageOrigin], tls: { cert: cert.cert, key: cert.key } },
      port,
    );
    return gw;
  };

  before(async () => {
    rig = await startBrowserRig(
      "nova-browser-h2-",
      join(import.meta.dirname, "sse-many-page.html"),
      chromiumTool.path,
      ["--ignore-certificate-errors"],
    );
    cert = await selfSignedCert(openssl, rig.dir);
    // The test's own requests (making the streams) trust the certificate too, until the suite
    // ends (other files may share this process, scripts/file-bundle.ts).
    restoreDispatcher = useGlobalDispatcher(new Agent({ connect: { ca: cert.cert } }));
    // Restarted on its port: one below the range the kernel hands out to other tests meanwhile.
    await startGateway(await freePort());
  });
  after(async () => {
    restoreDispatcher?.();
    await gw?.close();
    await rig?.close();
  });

  test("20 EventSources on one page, every append in order, resumed across a restart", async () => {
    const gateway = gw as Gateway;
    const { pageOrigin, browser } = rig as BrowserRig;
    assert.match(gateway.base, /^https:/);
    const streams: string[] = [];
    for (let i = 0; i < STREAMS; i++) streams.push(await newStream(gateway.base));
    const tab = await browser.newPage();
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
