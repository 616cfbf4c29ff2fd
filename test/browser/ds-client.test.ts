// Real Chromium (playwright-core driving Debian's /usr/bin/chromium) running
// @durable-streams/client, bundled for the browser by rolldown, in a page of another origin than
// the gateway: it appends through CORS and follows the stream live with SSE, across a gateway
// restart on the same port, every message once and in order.
import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { build } from "rolldown";
import { type BrowserRig, startBrowserRig } from "../harness/browser.ts";
import { type Gateway, inProcessGateway } from "../harness/gateway.ts";
import { freePort } from "../harness/ports.ts";
import { systemTool } from "../harness/system-tool.ts";

const chromiumTool = systemTool("/usr/bin/chromium", "chromium");
const root = join(import.meta.dirname, "..", "..");
const DS = { bucket: "durable-streams", longPollMs: 1000, sseCloseS: 60 };

/** What the test keeps on the page's window (this project has no DOM types). */
interface PageState {
  received: { i: number }[];
  follow(url: string): Promise<void>;
  append(url: string, from: number, to: number): Promise<void>;
}

/** The client as one script for the page: `DurableStreams` on the window. */
async function clientBundle(): Promise<string> {
  const out = await build({
    input: join(root, "node_modules/@durable-streams/client/dist/index.js"),
    platform: "browser",
    output: { format: "iife", name: "DurableStreams" },
    write: false,
    logLevel: "silent",
  });
  return out.output[0].code;
}

/** Runs in the page, after the bundle. */
function pageScript() {
  const w = globalThis as unknown as PageState & {
    DurableStreams: typeof import("@durable-streams/client");
  };
  const ds = w.DurableStreams;
  w.received = [];
  w.follow = async (url) => {
    const res = await ds.stream<{ i: number }>({
      url,
      offset: "-1",
      live: "sse",
      warnOnHttp: false,
      backoffOptions: { initialDelay: 50, maxDelay: 500, multiplier: 2, maxRetries: 200 },
    });
    res.subscribeJson(async (batch) => {
      w.received.push(...batch.items);
    });
  };
  w.append = async (url, from, to) => {
    const handle = new ds.DurableStream({
      url,
      contentType: "application/json",
      warnOnHttp: false,
    });
    for (let i = from; i < to; i++) await handle.append(JSON.stringify({ i }));
  };
}

describe("@durable-streams/client in Chromium", () => {
  let rig: BrowserRig | undefined;
  let gw: Gateway | undefined;

  before(async () => {
    if (chromiumTool.skip) return;
    rig = await startBrowserRig(
      "nova-ds-browser-",
      join(import.meta.dirname, "ds-client-page.html"),
      chromiumTool.path,
    );
    // Restarted on its port: one below the range the kernel hands out to other tests meanwhile.
    gw = await inProcessGateway(
      [rig.star.address],
      { corsOrigins: [rig.pageOrigin], ds: DS },
      await freePort(),
    );
  });
  after(async () => {
    await gw?.close();
    await rig?.close();
  });

  test("a cross-origin page appends and follows a stream with SSE across a gateway restart", {
    skip: chromiumTool.skip,
  }, async () => {
    const { star, pageOrigin, browser } = rig as BrowserRig;
    const url = `${(gw as Gateway).base}/ds/v1/stream/browser/chat`;
    const created = await fetch(url, {
      method: "PUT",
      headers: { "content-type": "application/json" },
    });
    assert.equal(created.status, 201);
    const tab = await browser.newPage();
    const pageErrors: string[] = [];
    tab.on("pageerror", (e) => pageErrors.push(String(e)));
    await tab.goto(pageOrigin);
    await tab.addScriptTag({ content: await clientBundle() });
    await tab.addScriptTag({ content: `(${pageScript.toString()})()` });

    await tab.evaluate((u) => (globalThis as unknown as PageState).follow(u), url);
    await tab.evaluate((u) => (globalThis as unknown as PageState).append(u, 0, 20), url);
    await tab.waitForFunction(() => (globalThis as unknown as PageState).received.length >= 20);

    const port = Number(new URL(url).port);
    await (gw as Gateway).close();
    gw = undefined;
    gw = await inProcessGateway([star.address], { corsOrigins: [pageOrigin], ds: DS }, port);
    await tab.evaluate((u) => (globalThis as unknown as PageState).append(u, 20, 40), url);
    await tab.waitForFunction(
      () => (globalThis as unknown as PageState).received.length >= 40,
      null,
      {
        timeout: 30_000,
      },
    );

    const received = await tab.evaluate(() => (globalThis as unknown as PageState).received);
    assert.deepEqual(
      received,
      Array.from({ length: 40 }, (_, i) => ({ i })),
    );
    assert.deepEqual(pageErrors, []);
    await tab.close();
  });

  test("a stream's bytes opened as a page run no script on the gateway's origin", {
    skip: chromiumTool.skip,
  }, async () => {
    const { browser } = rig as BrowserRig;
    const url = `${(gw as Gateway).base}/ds/v1/stream/browser/page`;
    const html = { "content-type": "text/html" };
    assert.equal((await fetch(url, { method: "PUT", headers: html })).status, 201);
    const body = "<script>document.title = 'ran'</script><p id=shown>stored</p>";
    assert.equal((await fetch(url, { method: "POST", headers: html, body })).status, 204);
    const tab = await browser.newPage();
    try {
      await tab.goto(`${url}?offset=-1`);
      assert.equal(await tab.textContent("#shown"), "stored", "the page is the stream's bytes");
      assert.equal(await tab.title(), "", "its script did not run");
    } finally {
      await tab.close();
    }
  });
});
