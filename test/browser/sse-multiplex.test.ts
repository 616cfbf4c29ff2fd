// Real Chromium over HTTP/1.1: a page from another origin follows 20 streams on one multiplexed
// EventSource (GET /v1/subscribe), where 20 EventSources would stall past the browser's six
// connections per origin. Appends to every stream arrive in order; the gateway restarts on the
// same port and the one EventSource resumes all 20 with its Last-Event-ID, by itself, with no
// gap and no duplicate on any stream.
import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { type BrowserRig, startBrowserRig } from "../harness/browser.ts";
import { type Gateway, inProcessGateway } from "../harness/gateway.ts";
import { newStream } from "../harness/http.ts";
import { freePort } from "../harness/ports.ts";
import { systemTool } from "../harness/system-tool.ts";

const chromiumTool = systemTool("/usr/bin/chromium", "chromium");
const STREAMS = 20;
const ROUNDS = 5;

/** What sse-multiplex-page.html keeps on its window (no DOM types here: globalThis is it). */
interface PageState {
  received: Record<string, [number, string][]>;
  opens: number;
  lastEventId: string;
  appendRound(round: number): Promise<void>;
}

describe("Chromium, one multiplexed EventSource over HTTP/1.1", { skip: chromiumTool.skip }, () => {
  let rig: BrowserRig | undefined;
  let gw: Gateway | undefined;

  const startGateway = async (port = 0) => {
    const { star, pageOrigin } = rig as BrowserRig;
    gw = await inProcessGateway([star.address], { corsOrigins: [pageOrigin] }, port);
    return gw;
  };

  before(async () => {
    rig = await startBrowserRig(
      "nova-browser-multiplex-",
      join(import.meta.dirname, "sse-multiplex-page.html"),
      chromiumTool.path,
    );
    // Restarted on its port: one below the range the kernel hands out to other tests meanwhile.
    await startGateway(await freePort());
  });
  after(async () => {
    await gw?.close();
    await rig?.close();
  });

  test("20 streams on one EventSource, every append in order, resumed across a restart", async () => {
    const gateway = gw as Gateway;
    const { pageOrigin, browser } = rig as BrowserRig;
    assert.match(gateway.base, /^http:/);
    const streams: string[] = [];
    for (let i = 0; i < STREAMS; i++) {
      const path = await newStream(gateway.base);
      streams.push(path.replace(/^\/v1\/buckets\/([^/]+)\/streams\//, "$1/"));
    }
    const tab = await browser.newPage();
    const pageErrors: string[] = [];
    tab.on("pageerror", (e) => pageErrors.push(String(e)));
    await tab.goto(
      `${pageOrigin}/?gateway=${encodeURIComponent(gateway.base)}&streams=${encodeURIComponent(streams.join(","))}`,
    );
    await tab.waitForFunction(() => (globalThis as unknown as PageState).opens === 1);
    const allReach = (n: number) =>
      tab.waitForFunction(
        (k) =>
          Object.values((globalThis as unknown as PageState).received).every((r) => r.length >= k),
        n,
        { timeout: 30_000 },
      );
    for (let round = 0; round < ROUNDS; round++) {
      await tab.evaluate((r) => (globalThis as unknown as PageState).appendRound(r), round);
    }
    await allReach(ROUNDS);

    // Restart on the same port: the gateway drains (a final retry:) and closes the connection,
    // comes back, and the EventSource reconnects with its Last-Event-ID by itself.
    const port = Number(new URL(gateway.base).port);
    await gateway.close();
    gw = undefined;
    await startGateway(port);
    // Appended while the EventSource waits out its retry: the resume must catch up on it.
    await tab.evaluate((r) => (globalThis as unknown as PageState).appendRound(r), ROUNDS);
    await tab.waitForFunction(() => (globalThis as unknown as PageState).opens === 2, null, {
      timeout: 30_000,
    });
    for (let round = ROUNDS + 1; round < 2 * ROUNDS; round++) {
      await tab.evaluate((r) => (globalThis as unknown as PageState).appendRound(r), round);
    }
    await allReach(2 * ROUNDS);
    const seen = await tab.evaluate(() => {
      const w = globalThis as unknown as PageState;
      return { received: w.received, lastEventId: w.lastEventId };
    });
    const want = Array.from({ length: 2 * ROUNDS }, (_, i) => [i, String(i)]);
    for (const stream of streams) assert.deepEqual(seen.received[stream], want, stream);
    const entries = seen.lastEventId.split(";");
    assert.equal(entries.length, STREAMS);
    entries.forEach((entry, i) => {
      assert.match(entry, new RegExp(`^${i}:${2 * ROUNDS},${2 * ROUNDS},${2 * ROUNDS}$`));
    });
    assert.deepEqual(pageErrors, []);
    await tab.close();
  });
});
