// Real Chromium (playwright-core driving Debian's /usr/bin/chromium): a page served by this test
// from another origin than the gateway appends with fetch (CORS) and follows with EventSource.
// It must receive every record in order, and resume by itself when the gateway restarts on the
// same port (a drain: the final `retry:`, then a dropped connection, then Last-Event-ID).
import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { type BrowserRig, startBrowserRig } from "../harness/browser.ts";
import { type Gateway, inProcessGateway } from "../harness/gateway.ts";
import { newStream } from "../harness/http.ts";
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
  let rig: BrowserRig | undefined;
  let gw: Gateway | undefined;

  before(async () => {
    if (chromiumTool.skip) return;
    rig = await startBrowserRig(
      "nova-browser-",
      join(import.meta.dirname, "sse-page.html"),
      chromiumTool.path,
    );
    gw = await inProcessGateway([rig.star.address], { corsOrigins: [rig.pageOrigin] });
  });
  after(async () => {
    await gw?.close();
    await rig?.close();
  });

  test("a cross-origin page appends with fetch and follows with EventSource across a gateway restart", {
    skip: chromiumTool.skip,
  }, async () => {
    const gateway = gw as Gateway;
    const { star, pageOrigin, browser } = rig as BrowserRig;
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
