// The console at `/`, in real Chromium (playwright-core driving Debian's /usr/bin/chromium),
// served by a gateway over a star that requires tokens: without a token the page says 401; with
// one it creates a bucket and a stream, appends from the form, sees the record in the read table,
// arriving in the live tail and after the tail is stopped and resumed, shows a non-UTF-8 record as
// base64, reconfigures and deletes;
// a token without the append scope gets the 403 message. Screenshots of the main views at desktop
// and phone width are written under the test's temp dir and checked to be non-blank. The same
// console then works over HTTP/2 with TLS and behind HAProxy, and `console: false` serves no `/`.
import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { type Browser, chromium, type Page } from "playwright-core";
import { Agent, request } from "undici";
import { type Gateway, inProcessGateway } from "../harness/gateway.ts";
import { type Haproxy, startHaproxy } from "../harness/haproxy.ts";
import { type StarProcess, startStarProcess, withApiKeys } from "../harness/star-process.ts";
import { systemTool } from "../harness/system-tool.ts";
import { selfSignedCert, type TestCert } from "../harness/tls.ts";

/** The page's DOM, as far as the checks below use it (this project has no DOM types). */
declare const document: {
  querySelector(selector: string): { textContent: string | null } | null;
  querySelectorAll(selector: string): Iterable<{ id: string; labels: { length: number } }>;
  documentElement: { scrollWidth: number };
  activeElement: { id: string } | null;
};
declare const window: { innerWidth: number };
/** Timing entries in the page (Node's types know performance, not its navigation entry). */
type Timings = { getEntriesByType(type: string): { nextHopProtocol: string }[] };

const chromiumTool = systemTool("/usr/bin/chromium", "chromium");
const haproxyTool = systemTool("/usr/sbin/haproxy", "haproxy");
const opensslTool = systemTool("/usr/bin/openssl", "openssl");
const SECRETS = { ops: "ops-secret-c0n5", reader: "reader-secret-9b2" };
const DESKTOP = { width: 1280, height: 900 };
const PHONE = { width: 390, height: 844 };

let dir: string;
let star: StarProcess | undefined;
let gw: Gateway | undefined;
let browser: Browser | undefined;
let cert: TestCert;
const tokens = { ops: "", reader: "" };
const closers: (() => Promise<void>)[] = [];

async function token(keyId: "ops" | "reader", scope: string): Promise<string> {
  const res = await request(`${(gw as Gateway).base}/v1/tokens`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ key_id: keyId, secret: SECRETS[keyId], scope }),
  });
  const body = (await res.body.json()) as { token: string };
  assert.equal(res.statusCode, 200);
  return body.token;
}

/** The API as the test's own client, with the ops token (to check what the console did). */
async function api(base: string, method: string, path: string, body?: unknown) {
  const res = await request(base + path, {
    method: method as "GET",
    headers: {
      authorization: `Bearer ${tokens.ops}`,
      ...(body === undefined ? {} : { "content-type": "application/json" }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
    dispatcher: new Agent({ connect: { rejectUnauthorized: false } }),
  });
  const text = await res.body.text();
  return { status: res.statusCode, json: text ? JSON.parse(text) : undefined };
}

/** A console tab whose page errors and CSP refusals are collected for the final check. */
async function openConsole(base: string, viewport = DESKTOP) {
  const tab = await (browser as Browser).newPage({ viewport });
  const problems: string[] = [];
  tab.on("pageerror", (e) => problems.push(String(e)));
  tab.on("console", (m) => {
    if (/Content Security Policy|Uncaught/.test(m.text())) problems.push(m.text());
  });
  tab.on("dialog", (d) => void d.accept());
  await tab.goto(`${base}/`);
  return { tab, problems };
}

async function useToken(tab: Page, value: string) {
  await tab.fill("#token", value);
  await tab.click("#token-form button[type=submit]");
}

/** Waits until the text of `selector` matches `re` (a function: the page's CSP forbids eval). */
async function waitText(tab: Page, selector: string, re: RegExp) {
  await tab.waitForFunction(
    ([sel, source, flags]) =>
      new RegExp(source, flags).test(document.querySelector(sel)?.textContent ?? ""),
    [selector, re.source, re.flags] as const,
  );
}

async function messageText(tab: Page) {
  await tab.waitForSelector("#message:not([hidden])");
  return (await tab.textContent("#message")) ?? "";
}

/** A screenshot written under the temp dir, checked to hold more than one colour. */
async function screenshot(tab: Page, name: string) {
  const png = await tab.screenshot({ fullPage: true });
  await writeFile(join(dir, `${name}.png`), png);
  const probe = await (browser as Browser).newPage();
  try {
    const colours = (await probe.evaluate(`(async () => {
      const img = new Image();
      img.src = "data:image/png;base64,${png.toString("base64")}";
      await img.decode();
      const canvas = document.createElement("canvas");
      canvas.width = img.width;
      canvas.height = img.height;
      const ctx = canvas.getContext("2d");
      ctx.drawImage(img, 0, 0);
      const data = ctx.getImageData(0, 0, img.width, img.height).data;
      const seen = new Set();
      for (let i = 0; i < data.length; i += 4 * 7) seen.add((data[i] << 16) | (data[i + 1] << 8) | data[i + 2]);
      return seen.size;
    })()`)) as number;
    assert.ok(colours > 20, `${name}.png has ${colours} colours: the view did not render`);
  } finally {
    await probe.close();
  }
}

/** Every form control has a label, and the page never scrolls sideways. */
async function checkLayout(tab: Page, what: string) {
  const facts = await tab.evaluate(() => ({
    unlabelled: [...document.querySelectorAll("input, select, textarea")]
      .filter((e) => e.labels.length === 0)
      .map((e) => e.id),
    overflow: document.documentElement.scrollWidth - window.innerWidth,
  }));
  assert.deepEqual(facts.unlabelled, [], `${what}: controls without a label`);
  assert.ok(facts.overflow <= 0, `${what}: the page is ${facts.overflow}px wider than the window`);
}

describe("the console in Chromium", { skip: chromiumTool.skip }, () => {
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), "nova-console-"));
    star = await startStarProcess([
      "--data-dir",
      dir,
      ...withApiKeys(`ops ${SECRETS.ops} nova:*:*,reader ${SECRETS.reader} nova:read:*`),
    ]);
    gw = await inProcessGateway([star.address]);
    tokens.ops = await token("ops", "nova:*:*");
    tokens.reader = await token("reader", "nova:read:*");
    browser = await chromium.launch({
      executablePath: chromiumTool.path,
      args: ["--no-sandbox", "--ignore-certificate-errors"],
      headless: true,
    });
  });
  after(async () => {
    for (const close of closers.reverse()) await close();
    await browser?.close();
    await gw?.close();
    star?.client.close();
    await star?.proc.kill("SIGTERM");
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  test("buckets, streams, append, read, live tail, base64, reconfigure, delete, 403", async () => {
    const base = (gw as Gateway).base;
    const { tab, problems } = await openConsole(base);
    await waitText(tab, "#health-ready", /^ready$/);

    // Without a token the star refuses, and the page says so.
    assert.match(await messageText(tab), /^401 unauthenticated: /);

    await useToken(tab, tokens.ops);
    await tab.waitForSelector("#message", { state: "hidden" });
    // By keyboard alone: Tab reaches the bucket form, Enter submits it.
    const focused: string[] = [];
    for (let i = 0; i < 20 && focused.at(-1) !== "new-bucket"; i++) {
      await tab.keyboard.press("Tab");
      focused.push(await tab.evaluate(() => document.activeElement?.id ?? ""));
    }
    assert.equal(focused.at(-1), "new-bucket", `Tab reaches the bucket form: ${focused.join(",")}`);
    await tab.keyboard.type("console-shop");
    await tab.keyboard.press("Enter");
    await tab.waitForURL(/#\/b\/console-shop$/);
    await tab.waitForSelector("#config");
    await tab.fill("#new-stream", "orders/eu");
    await tab.click("text=Create stream");
    await tab.waitForURL(/#\/s\/console-shop\/orders%2Feu$/);
    await waitText(tab, "#tail", /^0 \(no record yet\)$/);

    // Live tail first, then an append from the form: it arrives live.
    await tab.click("text=Follow live");
    await waitText(tab, "#live-state", /caught up/);
    // The health strip counts this tab's subscriber and the requests it makes.
    await waitText(tab, "#health-subscribers", /^[1-9]\d*$/);
    await waitText(tab, "#health-rps", /^\d+\.\d$/);
    await tab.fill("#append-body", "hello, console");
    await tab.fill("#append-headers", "source: form");
    await tab.click("button:text('Append')");
    await waitText(tab, "#status", /appended at seq_num 0/);
    const liveRow = tab.locator("table:has(caption:text('Live records')) tr[data-seq='0']");
    await liveRow.waitFor();
    assert.match((await liveRow.textContent()) ?? "", /source: form.*hello, console/);

    // A record that is not UTF-8, appended by another client, is shown as base64, unmangled.
    const added = await request(
      `${base}/v1/buckets/console-shop/streams/orders%2Feu/records?format=base64`,
      {
        method: "POST",
        headers: { authorization: `Bearer ${tokens.ops}`, "content-type": "application/json" },
        body: JSON.stringify({
          records: [{ body: "/w5oaQ==", headers: [{ name: "aw==", value: "/w==" }] }],
        }),
      },
    );
    assert.equal(added.statusCode, 200, await added.body.text());
    const liveBad = tab.locator("table:has(caption:text('Live records')) tr[data-seq='1']");
    await liveBad.waitFor();
    assert.match((await liveBad.textContent()) ?? "", /base64 \(not UTF-8\)\/w5oaQ==/);

    // Stopped, the tail resumes where it stopped: a record appended meanwhile, no duplicate.
    await tab.click("button:text-is('Stop')");
    await waitText(tab, "#live-state", /^stopped$/);
    const meanwhile = await api(
      base,
      "POST",
      "/v1/buckets/console-shop/streams/orders%2Feu/records",
      {
        records: [{ body: "while stopped" }],
      },
    );
    assert.equal(meanwhile.status, 200);
    await tab.click("button:text-is('Resume')");
    await tab.locator("table:has(caption:text('Live records')) tr[data-seq='2']").waitFor();
    const liveSeqs = await tab
      .locator("table:has(caption:text('Live records')) tbody tr")
      .evaluateAll((rows) =>
        rows.map((r) => (r as unknown as { dataset: { seq: string } }).dataset.seq),
      );
    assert.deepEqual(liveSeqs, ["0", "1", "2"]);

    // The read table, from seq_num 0.
    await tab.fill("#read-start", "0");
    await tab.click("button:text-is('Read')");
    const readRows = tab.locator("table:has(caption:text('Records read')) tbody tr");
    await readRows.nth(2).waitFor();
    assert.equal(await readRows.count(), 3);
    assert.match(
      (await readRows.nth(0).textContent()) ?? "",
      /^0\d{4}-.*source: form.*hello, console$/,
    );
    assert.match((await readRows.nth(1).textContent()) ?? "", /^1.*k: \/w==.*\/w5oaQ==$/);
    await checkLayout(tab, "stream view");
    await screenshot(tab, "stream-desktop");

    // Reconfigure: the editor's JSON, changed, is what the stream then has.
    const config = JSON.parse(await tab.inputValue("#config"));
    config.retention_max_age_ms = "86400000";
    await tab.fill("#config", JSON.stringify(config));
    await tab.click("text=Save configuration");
    await waitText(tab, "#status", /^configuration saved$/);
    const described = await api(base, "GET", "/v1/buckets/console-shop/streams/orders%2Feu");
    assert.equal(described.json.stream.retention_max_age_ms, 86_400_000);

    // A stream made and deleted from the bucket page (after the confirm dialog).
    await tab.click("#crumbs a:text('console-shop')");
    await tab.fill("#new-stream", "scratch");
    await tab.click("text=Create stream");
    await tab.waitForURL(/#\/s\/console-shop\/scratch$/);
    await tab.click("#crumbs a:text('console-shop')");
    await tab.click("button[aria-label='Delete stream scratch']");
    await waitText(tab, "#status", /stream scratch is being deleted/);
    const left = await api(base, "GET", "/v1/buckets/console-shop/streams");
    assert.deepEqual(
      left.json.streams.map((s: { key: string }) => s.key),
      ["orders/eu"],
    );
    await checkLayout(tab, "bucket view");
    await screenshot(tab, "bucket-desktop");
    await tab.click("#crumbs a:text('buckets')");
    await tab.locator("a:text('console-shop')").waitFor();
    await checkLayout(tab, "buckets view");
    await screenshot(tab, "buckets-desktop");

    // A token that may read but not append: the form's append gets the 403 message.
    await useToken(tab, tokens.reader);
    await tab.goto(`${base}/#/s/console-shop/orders%2Feu`);
    await useToken(tab, tokens.reader);
    await waitText(tab, "#tail", /^3 /);
    await tab.fill("#append-body", "not allowed");
    await tab.click("button:text('Append')");
    assert.match(await messageText(tab), /^403 permission_denied: .+/);
    const tail = await api(
      base,
      "GET",
      "/v1/buckets/console-shop/streams/orders%2Feu/records/tail",
    );
    assert.equal(tail.json.tail.seq_num, 3, "the refused append left nothing behind");
    assert.deepEqual(problems, []);

    // Phone width: the same views, without sideways scrolling.
    const phone = await openConsole(base, PHONE);
    await useToken(phone.tab, tokens.ops);
    await phone.tab.locator("a:text('console-shop')").waitFor();
    await checkLayout(phone.tab, "buckets view at phone width");
    await screenshot(phone.tab, "buckets-phone");
    await phone.tab.goto(`${base}/#/s/console-shop/orders%2Feu`);
    await useToken(phone.tab, tokens.ops);
    await phone.tab.fill("#read-start", "0");
    await phone.tab.click("button:text-is('Read')");
    await phone.tab.locator("tr[data-seq='1']").first().waitFor();
    await checkLayout(phone.tab, "stream view at phone width");
    await screenshot(phone.tab, "stream-phone");
    assert.deepEqual(phone.problems, []);
  });

  test("a view whose data comes late stays out of the next; the live tail starts by number; a BOM stays", async () => {
    const base = (gw as Gateway).base;
    const stream = "/v1/buckets/console-late/streams/s";
    assert.equal((await api(base, "POST", "/v1/buckets", { name: "console-late" })).status, 201);
    assert.equal(
      (await api(base, "POST", "/v1/buckets/console-late/streams", { key: "s" })).status,
      201,
    );
    // A body that starts with a UTF-8 byte order mark: EF BB BF, then "hi".
    const bom = await api(base, "POST", `${stream}/records?format=base64`, {
      records: [{ body: "77u/aGk=" }],
    });
    assert.equal(bom.status, 200);
    const { tab, problems } = await openConsole(base);
    await useToken(tab, tokens.ops);
    await tab.waitForSelector("#message", { state: "hidden" });

    // The stream's descriptor is held until the bucket's view is shown, then answered.
    let release = () => {};
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    let held = () => {};
    const holding = new Promise<void>((resolve) => {
      held = resolve;
    });
    await tab.route(
      (url) => url.pathname === stream && url.searchParams.get("int64") === "string",
      async (route) => {
        held();
        await released;
        await route.continue();
      },
    );
    // Counts the page's reads of that descriptor once the page has its body.
    await tab.evaluate((path) => {
      const w = globalThis as unknown as { fetch: typeof fetch; lateDone: number };
      const original = w.fetch;
      w.lateDone = 0;
      w.fetch = async (input, init) => {
        const res = await original(input, init);
        if (new URL(String(input), "http://x").pathname !== path) return res;
        const text = res.text.bind(res);
        Object.defineProperty(res, "text", {
          value: async () => {
            const body = await text();
            w.lateDone++;
            return body;
          },
        });
        return res;
      };
    }, stream);
    await tab.evaluate(() => {
      (globalThis as unknown as { location: { hash: string } }).location.hash =
        "#/s/console-late/s";
    });
    await holding;
    await tab.evaluate(() => {
      (globalThis as unknown as { location: { hash: string } }).location.hash = "#/b/console-late";
    });
    await tab.waitForSelector("#config");
    release();
    // Checked in a task after the one that gave the page the body: the stream view's
    // continuation, all microtasks, has run by then.
    await tab.waitForFunction(() => (globalThis as unknown as { lateDone: number }).lateDone > 0);
    await tab.unroute(() => true);
    assert.equal(await tab.locator("h2:text-is('Configuration')").count(), 1);
    assert.match((await tab.textContent("h1")) ?? "", /^Bucket/);
    assert.match(await tab.inputValue("#config"), /create_stream_on_append/);

    // The stream view: its live tail asks from the tail's number, which a reconnect before the
    // first batch (no Last-Event-ID) goes back to.
    const sse: string[] = [];
    tab.on("request", (r) => {
      if (r.headers().accept?.includes("text/event-stream")) sse.push(r.url());
    });
    await tab.evaluate(() => {
      (globalThis as unknown as { location: { hash: string } }).location.hash =
        "#/s/console-late/s";
    });
    await waitText(tab, "#tail", /^1 /);
    await tab.click("text=Follow live");
    await waitText(tab, "#live-state", /caught up/);
    assert.equal(new URL(sse[0] as string).searchParams.get("seq_num"), "1");

    // The record is read as its bytes are: the mark stays in the text shown.
    await tab.fill("#read-start", "0");
    await tab.click("button:text-is('Read')");
    const row = tab.locator("table:has(caption:text('Records read')) tbody tr").first();
    await row.waitFor();
    assert.match((await row.textContent()) ?? "", /\ufeffhi$/);
    assert.deepEqual(problems, []);
    await tab.close();
  });

  /** Through `base`: the page loads, lists the bucket, and a record arrives in the live tail. */
  async function liveThrough(base: string, stream: string) {
    const { tab, problems } = await openConsole(base);
    await useToken(tab, tokens.ops);
    await tab.goto(`${base}/#/s/console-shop/${stream}`);
    await useToken(tab, tokens.ops);
    await tab.click("text=Follow live");
    await waitText(tab, "#live-state", /caught up/);
    const res = await api(base, "POST", `/v1/buckets/console-shop/streams/${stream}/records`, {
      records: [{ body: `via ${base}` }],
    });
    assert.equal(res.status, 200);
    await tab.locator("tr[data-seq='0']").waitFor();
    assert.match((await tab.locator("tr[data-seq='0']").textContent()) ?? "", /via /);
    const protocol = await tab.evaluate(
      () =>
        (globalThis.performance as unknown as Timings).getEntriesByType("navigation")[0]
          ?.nextHopProtocol,
    );
    assert.deepEqual(problems, []);
    await tab.close();
    return protocol;
  }

  test("over HTTP/2 with TLS", { skip: opensslTool.skip }, async () => {
    cert = await selfSignedCert(opensslTool, dir);
    const h2 = await inProcessGateway([(star as StarProcess).address], {
      tls: { cert: cert.cert, key: cert.key },
    });
    closers.push(() => h2.close());
    assert.equal(
      (await api(h2.base, "POST", "/v1/buckets/console-shop/streams", { key: "h2" })).status,
      201,
    );
    assert.equal(await liveThrough(h2.base, "h2"), "h2");
  });

  test("behind HAProxy", { skip: haproxyTool.skip }, async () => {
    const port = Number(new URL((gw as Gateway).base).port);
    const lb: Haproxy = await startHaproxy(haproxyTool, {
      servers: [port],
      timeoutMs: 30_000,
      dir,
    });
    closers.push(() => lb.close());
    await lb.waitFor("g0", "UP");
    assert.equal(
      (await api(lb.base, "POST", "/v1/buckets/console-shop/streams", { key: "lb" })).status,
      201,
    );
    assert.equal(await liveThrough(lb.base, "lb"), "http/1.1");
  });
});

test("console: false serves no page at /", async () => {
  const plain = await inProcessGateway(["127.0.0.1:1"], { console: false });
  try {
    for (const path of ["/", "/console/console.js"]) {
      const res = await request(plain.base + path);
      assert.equal(res.statusCode, 404, path);
      assert.equal(((await res.body.json()) as { code: string }).code, "not_found");
    }
  } finally {
    await plain.close();
  }
});
