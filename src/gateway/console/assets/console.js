// The nova console: one ES module, no framework and no build step, using only the gateway's
// public HTTP API (docs/http-api.md), so it doubles as an example of it. Records are always read
// as base64 with exact integers (?int64=string) and decoded here: text that is not UTF-8 is shown
// as base64, never mangled, and seq_nums past 2^53 keep every digit.

const PAGE_SIZE = 20;
const READ_COUNT = 100;
/** Rows the live tail keeps on screen; older ones leave from the top. */
const LIVE_ROWS = 500;
const HEALTH_EVERY_MS = 3000;

/** The bearer token, in this tab's memory only: never stored, never in a URL but EventSource's. */
let token = "";
/** What the current view must stop when it is left (a live tail). */
let leaveView = () => {};
/** Counts the views routed to: a view whose data comes after the next was routed to drops it. */
let generation = 0;

const $ = (id) => document.getElementById(id);

/** An element with attributes (on* are listeners) and children (strings become text). */
function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === undefined || value === false) continue;
    if (name.startsWith("on")) node.addEventListener(name.slice(2), value);
    else if (name === "text") node.textContent = value;
    else node.setAttribute(name, value === true ? "" : String(value));
  }
  for (const child of children.flat()) {
    if (child !== undefined && child !== null) node.append(child);
  }
  return node;
}

function field(label, input) {
  return el("label", {}, label, input);
}

// ---- the API ----

class ApiError extends Error {
  constructor(status, body) {
    const code = body?.code ?? `http_${status}`;
    super(`${status} ${code}: ${body?.message ?? "the gateway gave no explanation"}`);
    this.status = status;
    this.body = body;
  }
}

async function api(method, path, { body, query, headers = {} } = {}) {
  const url = new URL(path, location.origin);
  for (const [k, v] of Object.entries(query ?? {})) {
    if (v !== undefined && v !== "") url.searchParams.set(k, v);
  }
  const init = { method, headers: { accept: "application/json", ...headers } };
  if (token) init.headers.authorization = `Bearer ${token}`;
  if (body !== undefined) {
    init.headers["content-type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  const res = await fetch(url, init);
  const text = await res.text();
  let json;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = { code: `http_${res.status}`, message: text.slice(0, 300) };
  }
  if (!res.ok) throw new ApiError(res.status, json);
  return json;
}

const bucketPath = (b) => `/v1/buckets/${encodeURIComponent(b)}`;
const streamPath = (b, k) => `${bucketPath(b)}/streams/${encodeURIComponent(k)}`;

// ---- messages ----

function showError(err) {
  const box = $("message");
  box.textContent = err instanceof Error ? err.message : String(err);
  box.hidden = false;
}

function say(text) {
  $("message").hidden = true;
  $("status").textContent = text;
}

/** Runs an action from a form or button: its error goes to the alert, never to the console. */
function guarded(action) {
  return async (event) => {
    event?.preventDefault?.();
    $("message").hidden = true;
    try {
      await action(event);
    } catch (err) {
      showError(err);
    }
  };
}

// ---- record bytes ----

// ignoreBOM: a leading U+FEFF is part of the record, shown as it is.
const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

function base64Bytes(b64) {
  const bin = atob(b64);
  const bytes = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
  return bytes;
}

/** A field read as base64, shown as text when it is UTF-8 and `asText`, else as base64. */
function shownBytes(b64, asText) {
  if (asText) {
    try {
      return { text: utf8.decode(base64Bytes(b64)), note: undefined };
    } catch {
      return { text: b64, note: "base64 (not UTF-8)" };
    }
  }
  return { text: b64, note: "base64" };
}

function bytesCell(b64, asText) {
  const { text, note } = shownBytes(b64, asText);
  return el("td", { class: "data" }, note ? el("span", { class: "badge", text: note }) : "", text);
}

function headersCell(headers, asText) {
  const td = el("td", { class: "data" });
  for (const h of headers ?? []) {
    const name = shownBytes(h.name, asText);
    const value = shownBytes(h.value, asText);
    const note = name.note ?? value.note;
    td.append(
      el(
        "div",
        {},
        note ? el("span", { class: "badge", text: note }) : "",
        `${name.text}: ${value.text}`,
      ),
    );
  }
  return td;
}

function timeText(ms) {
  const n = Number(ms);
  const d = new Date(n);
  return Number.isFinite(d.getTime()) ? `${d.toISOString()} (${ms})` : String(ms);
}

function recordRow(record, asText) {
  return el(
    "tr",
    { "data-seq": record.seq_num },
    el("td", { text: record.seq_num }),
    el("td", { text: timeText(record.timestamp_ms) }),
    headersCell(record.headers, asText),
    bytesCell(record.body, asText),
  );
}

function recordTable(caption) {
  const body = el("tbody");
  const table = el(
    "table",
    { class: "records" },
    el("caption", { class: "muted", text: caption }),
    el(
      "thead",
      {},
      el(
        "tr",
        {},
        el("th", { scope: "col", text: "seq_num" }),
        el("th", { scope: "col", text: "time" }),
        el("th", { scope: "col", text: "headers" }),
        el("th", { scope: "col", text: "body" }),
      ),
    ),
    body,
  );
  return { wrap: el("div", { class: "scroll" }, table), body };
}

// ---- views ----

function crumbs(...parts) {
  const nav = $("crumbs");
  nav.replaceChildren();
  const all = [["buckets", "#/"], ...parts];
  all.forEach(([label, href], i) => {
    if (i > 0) nav.append(" / ");
    nav.append(i === all.length - 1 ? el("span", { text: label }) : el("a", { href, text: label }));
  });
}

/** A list with a name filter and a "more" button that follows the API's `next` cursor. */
function pagedList({ title, load, row, headings }) {
  const prefix = el("input", { id: "list-prefix", name: "prefix", placeholder: "prefix" });
  const tbody = el("tbody");
  const more = el("button", { type: "button", hidden: true, text: "More" });
  let next = "";
  // The page last asked for is the one shown: a Filter while More loads wins, and More is
  // disabled while a page loads (a second click would ask for the same page again).
  let asked = 0;
  const fetchPage = async (fresh) => {
    const mine = ++asked;
    more.disabled = true;
    try {
      await showPage(fresh, mine);
    } finally {
      if (mine === asked) more.disabled = false;
    }
  };
  const showPage = async (fresh, mine) => {
    const page = await load({
      prefix: prefix.value,
      start_after: fresh ? "" : next,
      limit: String(PAGE_SIZE),
    });
    if (mine !== asked) return;
    if (fresh) tbody.replaceChildren();
    for (const item of page.items) tbody.append(row(item));
    if (tbody.children.length === 0) {
      tbody.append(
        el("tr", {}, el("td", { colspan: headings.length, class: "muted", text: "none" })),
      );
    }
    next = page.next;
    more.hidden = !next;
  };
  more.addEventListener(
    "click",
    guarded(() => fetchPage(false)),
  );
  const section = el(
    "section",
    { class: "card" },
    el("h2", { text: title }),
    el(
      "form",
      { class: "row", role: "search", onsubmit: guarded(() => fetchPage(true)) },
      field("Name starts with", prefix),
      el("button", { type: "submit", text: "Filter" }),
    ),
    el(
      "div",
      { class: "scroll" },
      el(
        "table",
        {},
        el(
          "thead",
          {},
          el(
            "tr",
            {},
            headings.map((h) => el("th", { scope: "col", text: h })),
          ),
        ),
        tbody,
      ),
    ),
    more,
  );
  return { section, refresh: () => fetchPage(true) };
}

/** A JSON editor of a descriptor's settable fields, saved with PATCH. */
function configEditor(path, descriptor, fixed, onSaved) {
  const settable = Object.fromEntries(
    Object.entries(descriptor).filter(([k]) => !fixed.includes(k)),
  );
  const area = el("textarea", { id: "config", name: "config", rows: 10, spellcheck: "false" });
  area.value = JSON.stringify(settable, null, 2);
  const save = async () => {
    let patch;
    try {
      patch = JSON.parse(area.value);
    } catch (err) {
      throw new Error(`the configuration is not JSON: ${err.message}`);
    }
    const saved = await api("PATCH", path, { body: patch, query: { int64: "string" } });
    say("configuration saved");
    onSaved?.(saved);
  };
  return el(
    "section",
    { class: "card" },
    el("h2", { text: "Configuration" }),
    el(
      "form",
      { class: "stack", onsubmit: guarded(save) },
      field("Settable fields (JSON; PATCH sends them all)", area),
      el("div", {}, el("button", { type: "submit", class: "primary", text: "Save configuration" })),
    ),
  );
}

/** A listed bucket or stream: its link, when it was made, and Delete after a confirm. */
function listedRow(list, { kind, name, href, created, warning, path }) {
  return el(
    "tr",
    {},
    el("td", {}, el("a", { href, text: name })),
    el("td", { text: timeText(created) }),
    el(
      "td",
      {},
      el("button", {
        type: "button",
        class: "danger",
        "aria-label": `Delete ${kind} ${name}`,
        text: "Delete",
        onclick: guarded(async () => {
          if (!confirm(`Delete ${kind} "${name}" ${warning}?`)) return;
          await api("DELETE", path);
          say(`${kind} ${name} is being deleted`);
          await list.refresh();
        }),
      }),
    ),
  );
}

/** A card whose one-field form creates a bucket or a stream. */
function createCard(title, button, labelled, create) {
  return el(
    "section",
    { class: "card" },
    el("h2", { text: title }),
    el(
      "form",
      { class: "row", onsubmit: guarded(create) },
      labelled,
      el("button", { type: "submit", class: "primary", text: button }),
    ),
  );
}

async function bucketsView() {
  crumbs();
  const list = pagedList({
    title: "Buckets",
    headings: ["name", "created", ""],
    load: async (q) => {
      const page = await api("GET", "/v1/buckets", { query: { ...q, int64: "string" } });
      return { items: page.buckets, next: page.next };
    },
    row: (b) =>
      listedRow(list, {
        kind: "bucket",
        name: b.name,
        href: `#/b/${encodeURIComponent(b.name)}`,
        created: b.created_at_unix_ms,
        warning: "and every stream in it",
        path: bucketPath(b.name),
      }),
  });
  const name = el("input", {
    id: "new-bucket",
    name: "name",
    required: true,
    placeholder: "my-bucket",
  });
  const create = createCard(
    "Create a bucket",
    "Create bucket",
    field("Name (3-48 of a-z, 0-9, -)", name),
    async () => {
      await api("POST", "/v1/buckets", { body: { name: name.value } });
      location.hash = `#/b/${encodeURIComponent(name.value)}`;
    },
  );
  $("view").replaceChildren(el("h1", { text: "Buckets" }), create, list.section);
  await list.refresh();
}

async function bucketView(bucket, shown) {
  crumbs([bucket, `#/b/${encodeURIComponent(bucket)}`]);
  const list = pagedList({
    title: "Streams",
    headings: ["key", "created", ""],
    load: async (q) => {
      const page = await api("GET", `${bucketPath(bucket)}/streams`, {
        query: { ...q, int64: "string" },
      });
      return { items: page.streams, next: page.next };
    },
    row: (s) =>
      listedRow(list, {
        kind: "stream",
        name: s.key,
        href: `#/s/${encodeURIComponent(bucket)}/${encodeURIComponent(s.key)}`,
        created: s.created_at_unix_ms,
        warning: "and its records",
        path: streamPath(bucket, s.key),
      }),
  });
  const key = el("input", {
    id: "new-stream",
    name: "key",
    required: true,
    placeholder: "orders/eu",
  });
  const create = createCard(
    "Create a stream",
    "Create stream",
    field("Key (any UTF-8, 1-512 bytes)", key),
    async () => {
      await api("POST", `${bucketPath(bucket)}/streams`, { body: { key: key.value } });
      location.hash = `#/s/${encodeURIComponent(bucket)}/${encodeURIComponent(key.value)}`;
    },
  );
  $("view").replaceChildren(
    el("h1", {}, "Bucket ", el("code", { text: bucket })),
    create,
    list.section,
  );
  const descriptor = await api("GET", bucketPath(bucket), { query: { int64: "string" } });
  if (shown !== generation) return;
  $("view").append(
    configEditor(bucketPath(bucket), descriptor, [
      "name",
      "creation_token",
      "created_at_unix_ms",
      "deleted_at_unix_ms",
    ]),
  );
  await list.refresh();
}

function tailText(tail) {
  // A stream that never held a record has a tail of 0 at time 0: no time to show.
  if (String(tail.seq_num) === "0") return "0 (no record yet)";
  return `${tail.seq_num} (last record at ${timeText(tail.timestamp_ms)})`;
}

async function streamView(bucket, key, shown) {
  crumbs([bucket, `#/b/${encodeURIComponent(bucket)}`], [key, location.hash]);
  const path = streamPath(bucket, key);
  const tailOut = el("dd", { id: "tail", text: "…" });
  const fenceOut = el("dd", { id: "fencing-token", text: "…" });
  const refreshTail = async () => {
    const { tail } = await api("GET", `${path}/records/tail`, { query: { int64: "string" } });
    tailOut.textContent = tailText(tail);
  };
  const facts = el(
    "section",
    { class: "card" },
    el("h2", { text: "Stream" }),
    el(
      "dl",
      { class: "facts" },
      el("dt", { text: "bucket" }),
      el("dd", { text: bucket }),
      el("dt", { text: "key" }),
      el("dd", { text: key }),
      el("dt", { text: "tail" }),
      tailOut,
      el("dt", { text: "fencing token" }),
      fenceOut,
    ),
  );

  // Append.
  const body = el("textarea", { id: "append-body", name: "body", rows: 4 });
  const headers = el("textarea", {
    id: "append-headers",
    name: "headers",
    rows: 2,
    placeholder: "one per line: name: value",
  });
  const format = el(
    "select",
    { id: "append-format", name: "format" },
    el("option", { value: "raw", text: "raw (UTF-8 text)" }),
    el("option", { value: "base64", text: "base64" }),
  );
  const appendToken = el("input", { id: "append-fencing-token", name: "fencing_token" });
  const append = async () => {
    const record = { body: body.value, headers: [] };
    for (const line of headers.value.split("\n")) {
      if (!line.trim()) continue;
      const at = line.indexOf(":");
      if (at < 1) throw new Error(`header line "${line}" needs the form name: value`);
      record.headers.push({ name: line.slice(0, at).trim(), value: line.slice(at + 1).trim() });
    }
    const input = { records: [record] };
    if (appendToken.value) input.fencing_token = appendToken.value;
    const ack = await api("POST", `${path}/records`, {
      body: input,
      query: { int64: "string" },
      headers: { "nova-format": format.value },
    });
    say(`appended at seq_num ${ack.start.seq_num}; tail ${ack.tail.seq_num}`);
    tailOut.textContent = tailText(ack.tail);
    body.value = "";
  };
  const appendCard = el(
    "section",
    { class: "card" },
    el("h2", { text: "Append a record" }),
    el(
      "form",
      { class: "stack", onsubmit: guarded(append) },
      field("Body", body),
      field("Headers", headers),
      el(
        "div",
        { class: "row" },
        field("Format", format),
        field("Fencing token (if fenced)", appendToken),
      ),
      el("div", {}, el("button", { type: "submit", class: "primary", text: "Append" })),
    ),
  );

  // Fence and trim.
  const fenceInput = el("input", {
    id: "fence-token",
    name: "fencing_token",
    placeholder: "empty clears it",
  });
  const trimInput = el("input", {
    id: "trim-seq",
    name: "seq_num",
    inputmode: "numeric",
    required: true,
  });
  const controls = el(
    "section",
    { class: "card" },
    el("h2", { text: "Fence and trim" }),
    el(
      "form",
      {
        class: "row",
        onsubmit: guarded(async () => {
          await api("POST", `${path}/fence`, {
            body: { fencing_token: fenceInput.value },
            query: { int64: "string" },
          });
          fenceOut.textContent = fenceInput.value || "(none)";
          say(fenceInput.value ? "fencing token set" : "fencing token cleared");
        }),
      },
      field("Fencing token", fenceInput),
      el("button", { type: "submit", text: "Fence" }),
    ),
    el(
      "form",
      {
        class: "row",
        onsubmit: guarded(async () => {
          if (!confirm(`Trim every record below seq_num ${trimInput.value}?`)) return;
          await api("POST", `${path}/trim`, { body: { seq_num: trimInput.value.trim() } });
          say(`trimmed below seq_num ${trimInput.value}`);
        }),
      },
      field("Trim below seq_num", trimInput),
      el("button", { type: "submit", class: "danger", text: "Trim" }),
    ),
  );

  // Read.
  const startBy = el(
    "select",
    { id: "read-start-by", name: "start_by" },
    el("option", { value: "seq_num", text: "seq_num" }),
    el("option", { value: "timestamp_ms", text: "timestamp_ms" }),
    el("option", { value: "tail_offset", text: "records before the tail" }),
  );
  const startAt = el("input", {
    id: "read-start",
    name: "start",
    value: "0",
    inputmode: "numeric",
  });
  const show = el(
    "select",
    { id: "read-show", name: "show" },
    el("option", { value: "text", text: "text (non-UTF-8 as base64)" }),
    el("option", { value: "base64", text: "base64" }),
  );
  const read = recordTable("Records read");
  const nextPage = el("button", { type: "button", hidden: true, text: "Next page" });
  let nextSeq = "";
  const readFrom = async (by, at) => {
    const page = await api("GET", `${path}/records`, {
      query: { [by]: at, count: String(READ_COUNT), format: "base64", int64: "string" },
    });
    read.body.replaceChildren();
    for (const r of page.records) read.body.append(recordRow(r, show.value === "text"));
    if (page.records.length === 0) {
      read.body.append(
        el("tr", {}, el("td", { colspan: 4, class: "muted", text: "no records there" })),
      );
    }
    const last = page.records.at(-1);
    nextSeq = last ? (BigInt(last.seq_num) + 1n).toString() : "";
    nextPage.hidden = !last || BigInt(nextSeq) >= BigInt(page.tail.seq_num);
    tailOut.textContent = tailText(page.tail);
  };
  nextPage.addEventListener(
    "click",
    guarded(() => readFrom("seq_num", nextSeq)),
  );
  const readCard = el(
    "section",
    { class: "card" },
    el("h2", { text: "Read" }),
    el(
      "form",
      { class: "row", onsubmit: guarded(() => readFrom(startBy.value, startAt.value.trim())) },
      field("Start by", startBy),
      field("From", startAt),
      field("Show as", show),
      el("button", { type: "submit", class: "primary", text: "Read" }),
    ),
    read.wrap,
    nextPage,
  );

  // Live tail.
  const live = recordTable("Live records, newest last");
  const liveState = el("span", { id: "live-state", class: "muted", text: "stopped" });
  const follow = el("button", { type: "button", class: "primary", text: "Follow live" });
  let source;
  let lastEventId = "";
  const stop = (why) => {
    source?.close();
    source = undefined;
    follow.textContent = lastEventId ? "Resume" : "Follow live";
    liveState.textContent = why;
  };
  const start = async () => {
    const url = new URL(`${path}/records`, location.origin);
    url.searchParams.set("format", "base64");
    url.searchParams.set("int64", "string");
    if (lastEventId) url.searchParams.set("last_event_id", lastEventId);
    else {
      // From the tail as it is now, by number: a reconnect before the first batch (which sends
      // no Last-Event-ID) resumes there, not at a later tail, missing what came meanwhile.
      // Follow waits meanwhile, so a second click opens no second tail.
      follow.disabled = true;
      let tail;
      try {
        ({ tail } = await api("GET", `${path}/records/tail`, { query: { int64: "string" } }));
      } catch (err) {
        // A view left meanwhile shows nothing of it, its error neither.
        if (shown === generation) throw err;
      } finally {
        follow.disabled = false;
      }
      if (shown !== generation) return;
      url.searchParams.set("seq_num", tail.seq_num);
    }
    if (token) url.searchParams.set("access_token", token);
    const es = new EventSource(url);
    source = es;
    follow.textContent = "Stop";
    liveState.textContent = "connecting";
    es.addEventListener("open", () => {
      liveState.textContent = "following";
    });
    es.addEventListener("batch", (e) => {
      lastEventId = e.lastEventId;
      const batch = JSON.parse(e.data);
      for (const r of batch.records) live.body.append(recordRow(r, show.value === "text"));
      while (live.body.children.length > LIVE_ROWS) live.body.firstElementChild.remove();
      tailOut.textContent = tailText(batch.tail);
    });
    es.addEventListener("ping", (e) => {
      tailOut.textContent = tailText(JSON.parse(e.data).tail);
      liveState.textContent = "following, caught up";
    });
    es.addEventListener("done", () => stop("ended"));
    es.addEventListener("error", (e) => {
      // The gateway's own `event: error` carries an error body; a bare error is the connection.
      if (e instanceof MessageEvent && e.data) {
        stop("stopped by an error");
        let body;
        try {
          body = JSON.parse(e.data);
        } catch {
          body = { message: String(e.data) };
        }
        showError(new ApiError("SSE", body));
      } else if (es.readyState === EventSource.CLOSED) {
        stop("refused");
        // EventSource hides the refusal's body: a plain read of the stream shows why.
        api("GET", `${path}/records`, { query: { tail_offset: "0", format: "base64" } }).then(
          () => showError(new Error("the live tail was refused; try again")),
          showError,
        );
      } else {
        liveState.textContent = "reconnecting";
      }
    });
  };
  follow.addEventListener(
    "click",
    guarded(() => (source ? stop("stopped") : start())),
  );
  const liveCard = el(
    "section",
    { class: "card" },
    el("h2", { text: "Live tail" }),
    el("p", {}, follow, " ", liveState),
    live.wrap,
  );

  leaveView = () => stop("stopped");
  $("view").replaceChildren(
    el("h1", {}, "Stream ", el("code", { text: key })),
    facts,
    liveCard,
    appendCard,
    readCard,
    controls,
  );
  const described = await api("GET", path, { query: { int64: "string" } });
  if (shown !== generation) return;
  fenceOut.textContent = described.fencing_token || "(none)";
  $("view").append(
    configEditor(path, described.stream, [
      "bucket",
      "key",
      "stream_id",
      "creation_token",
      "created_at_unix_ms",
      "deleted_at_unix_ms",
    ]),
  );
  await refreshTail();
}

// ---- routing ----

async function route() {
  leaveView();
  leaveView = () => {};
  const shown = ++generation;
  $("status").textContent = "";
  $("message").hidden = true;
  const [, kind, bucket, key] = location.hash.split("/");
  try {
    if (kind === "b" && bucket) await bucketView(decodeURIComponent(bucket), shown);
    else if (kind === "s" && bucket && key !== undefined) {
      await streamView(decodeURIComponent(bucket), decodeURIComponent(key), shown);
    } else await bucketsView();
  } catch (err) {
    if (shown === generation) showError(err);
  }
}

// ---- health ----

/** Sums a metric's samples (every label set) in Prometheus' text format. */
function metricSum(text, name) {
  let sum = 0;
  let seen = false;
  for (const line of text.split("\n")) {
    if (line.startsWith(`${name} `) || line.startsWith(`${name}{`)) {
      sum += Number(line.slice(line.lastIndexOf(" ") + 1));
      seen = true;
    }
  }
  return seen ? sum : undefined;
}

let lastRequests;
async function health() {
  const ready = $("health-ready");
  try {
    const res = await fetch("/readyz");
    const body = await res.json().catch(() => ({}));
    ready.textContent = body.status ?? String(res.status);
    ready.className = res.ok ? "good" : "bad";
    const text = await (await fetch("/metrics")).text();
    $("health-hubs").textContent = String(metricSum(text, "nova_gateway_hubs") ?? "n/a");
    $("health-subscribers").textContent = String(
      metricSum(text, "nova_gateway_hub_subscribers") ?? "n/a",
    );
    const requests = {
      at: performance.now(),
      n: metricSum(text, "nova_gateway_requests_total") ?? 0,
    };
    if (lastRequests) {
      const rate = ((requests.n - lastRequests.n) * 1000) / (requests.at - lastRequests.at);
      $("health-rps").textContent = rate.toFixed(1);
    }
    lastRequests = requests;
  } catch {
    ready.textContent = "unreachable";
    ready.className = "bad";
  }
}

/** Polls while the tab is visible only: a console left in a background tab costs nothing. */
function pollHealth() {
  if (document.visibilityState === "visible") health();
  setTimeout(pollHealth, HEALTH_EVERY_MS);
}

// ---- start ----

$("token-form").addEventListener("submit", (e) => {
  e.preventDefault();
  token = $("token").value.trim();
  say(token ? "token set for this tab" : "no token");
  route();
});
$("token-forget").addEventListener("click", () => {
  token = "";
  $("token").value = "";
  say("token forgotten");
  route();
});
window.addEventListener("hashchange", route);
pollHealth();
route();
