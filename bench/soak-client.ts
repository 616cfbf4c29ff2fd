// The load process of `bench/soak.ts`: the steady mix of a small production against one gateway,
// run until its stdin closes or SOAK_SECONDS pass. Every minute it prints one JSON line with what
// it saw (appends acked, events received, reads, errors), so the soak shows correctness beside
// memory. Parts can be switched off one at a time (SOAK_PARTS=appends,sse,pages,longpoll,resume)
// to find which one holds memory.
//   node bench/soak-client.ts <gateway base URL> <stream path>...
import "../scripts/help-first.ts";
import { Agent, type ClientRequest, get, type IncomingMessage } from "node:http";
import { createParser } from "eventsource-parser";
import { request } from "undici";

const [base, ...streams] = process.argv.slice(2);
if (!base || streams.length === 0) {
  process.stderr.write("usage: node bench/soak-client.ts <gateway base URL> <stream path>...\n");
  process.exit(2);
}

const env = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
const APPENDS_PER_S = env("SOAK_APPENDS_PER_S", 20);
const PRODUCERS = env("SOAK_PRODUCERS", 2);
const RECORD_BYTES = env("SOAK_RECORD_BYTES", 1024);
const SUBSCRIBERS_PER_STREAM = env("SOAK_SUBSCRIBERS_PER_STREAM", 20);
const PAGE_READS_PER_S = env("SOAK_PAGE_READS_PER_S", 4);
const PAGE_COUNT = env("SOAK_PAGE_COUNT", 100);
const RESUME_EVERY_MS = env("SOAK_RESUME_EVERY_MS", 60_000);
const RESUMES = env("SOAK_RESUMES", 20);
const REPORT_EVERY_MS = env("SOAK_REPORT_EVERY_MS", 60_000);
const SECONDS = env("SOAK_SECONDS", 0);
const parts = new Set(
  (process.env.SOAK_PARTS ?? "appends,sse,pages,longpoll,resume").split(",").filter(Boolean),
);

// Without keep-alive: an SSE response closes its connection anyway, and a kept-alive agent takes
// back the socket of a request destroyed before it was sent (a resume), unused; the gateway
// answers such a connection 408 after its headers timeout, and a later request could read that
// answer as its own.
const agent = new Agent({ keepAlive: false, maxSockets: Number.POSITIVE_INFINITY });
const body = "x".repeat(RECORD_BYTES);
const counts = {
  appended: 0,
  events: 0,
  records: 0,
  outOfOrder: 0,
  pages: 0,
  longPolls: 0,
  resumes: 0,
  errors: 0,
  lastError: "",
};
const appendedTo = new Map<string, number>(streams.map((s) => [s, 0]));
let stopping = false;

function failed(what: string, err: unknown): void {
  if (stopping) return;
  counts.errors++;
  counts.lastError = `${what}: ${String(err)}`.slice(0, 300);
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms).unref());

async function producer(index: number): Promise<void> {
  const interval = (1000 * PRODUCERS) / APPENDS_PER_S;
  let next = performance.now();
  for (let i = index; !stopping; i += PRODUCERS) {
    const stream = streams[i % streams.length] as string;
    try {
      const res = await request(`${base}${stream}/records`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ records: [{ body }] }),
      });
      const text = await res.body.text();
      if (res.statusCode !== 200) throw new Error(`${res.statusCode} ${text}`);
      counts.appended++;
      appendedTo.set(stream, (appendedTo.get(stream) ?? 0) + 1);
    } catch (err) {
      failed("append", err);
    }
    next += interval;
    await sleep(Math.max(0, next - performance.now()));
  }
}

/** One SSE subscriber: from seq_num 0, checking each record comes once and in order. */
class Subscriber {
  private req: ClientRequest | undefined;
  private res: IncomingMessage | undefined;
  private lastId = "";
  private nextSeq = 0;
  private resumedFrom = "";
  private readonly stream: string;

  constructor(stream: string) {
    this.stream = stream;
  }

  open(): void {
    const headers: Record<string, string> = { accept: "text/event-stream" };
    if (this.lastId) headers["last-event-id"] = this.lastId;
    this.resumedFrom = `${this.lastId}@${this.nextSeq}`;
    const parser = createParser({
      onEvent: (event) => {
        if (event.event !== "batch") return;
        counts.events++;
        if (event.id) this.lastId = event.id;
        const batch = JSON.parse(event.data) as { records: { seq_num: number }[] };
        for (const r of batch.records) {
          if (r.seq_num !== this.nextSeq) {
            counts.outOfOrder++;
            if (counts.outOfOrder < 6) {
              counts.lastError = `${this.stream}: expected ${this.nextSeq}, got ${r.seq_num} (id ${event.id}, resumed from ${this.resumedFrom})`;
            }
          }
          this.nextSeq = r.seq_num + 1;
          counts.records++;
        }
      },
    });
    const openedAt = performance.now();
    const req = get(`${base}${this.stream}/records?seq_num=0`, { agent, headers }, (res) => {
      if (this.req !== req) {
        res.destroy();
        return;
      }
      this.res = res;
      if (res.statusCode !== 200) {
        // The body says which bound answered, and the connection which side was late, for a
        // report that can be acted on.
        const after = Math.round(performance.now() - openedAt);
        const connection = `${req.reusedSocket ? "a reused" : "a new"} connection, local port ${req.socket?.localPort}`;
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => {
          text += chunk;
        });
        res.on("end", () =>
          failed("sse", `status ${res.statusCode} after ${after} ms on ${connection}: ${text}`),
        );
        return;
      }
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => parser.feed(chunk));
      res.on("end", () => {
        if (!stopping && this.res === res) failed("sse", "ended");
      });
    });
    req.on("error", (err) => {
      if (this.req === req) failed("sse", err);
    });
    this.req = req;
  }

  /** Drops the connection and comes back with Last-Event-ID, as a browser does. */
  resume(): void {
    const { req, res } = this;
    this.req = undefined;
    this.res = undefined;
    res?.destroy();
    req?.destroy();
    counts.resumes++;
    this.open();
  }

  close(): void {
    this.res?.destroy();
    this.req?.destroy();
  }
}

async function pageReader(): Promise<void> {
  const interval = 1000 / PAGE_READS_PER_S;
  let next = performance.now();
  while (!stopping) {
    const stream = streams[Math.floor(Math.random() * streams.length)] as string;
    const tail = appendedTo.get(stream) ?? 0;
    const from = Math.floor(Math.random() * Math.max(1, tail - PAGE_COUNT));
    try {
      const res = await request(`${base}${stream}/records?seq_num=${from}&count=${PAGE_COUNT}`, {
        headers: { "accept-encoding": "gzip" },
      });
      await res.body.arrayBuffer();
      if (res.statusCode !== 200) throw new Error(`status ${res.statusCode}`);
      counts.pages++;
    } catch (err) {
      failed("page", err);
    }
    next += interval;
    await sleep(Math.max(0, next - performance.now()));
  }
}

async function longPoller(stream: string): Promise<void> {
  let from = 0;
  while (!stopping) {
    try {
      const res = await request(`${base}${stream}/records?seq_num=${from}&wait=10&count=1000`);
      const page = (await res.body.json()) as { records?: { seq_num: number }[] };
      if (res.statusCode !== 200) throw new Error(`status ${res.statusCode}`);
      const last = page.records?.at(-1);
      if (last) from = last.seq_num + 1;
      counts.longPolls++;
    } catch (err) {
      failed("long-poll", err);
      await sleep(1000);
    }
  }
}

const subscribers: Subscriber[] = [];
if (parts.has("sse")) {
  for (const stream of streams) {
    for (let i = 0; i < SUBSCRIBERS_PER_STREAM; i++) {
      const s = new Subscriber(stream);
      subscribers.push(s);
      s.open();
    }
  }
}
const loops: Promise<void>[] = [];
if (parts.has("appends")) for (let i = 0; i < PRODUCERS; i++) loops.push(producer(i));
if (parts.has("pages")) loops.push(pageReader());
if (parts.has("longpoll")) for (const s of streams) loops.push(longPoller(s));
const timers: NodeJS.Timeout[] = [];
if (parts.has("resume") && subscribers.length > 0) {
  timers.push(
    setInterval(() => {
      for (let i = 0; i < RESUMES; i++) {
        subscribers[Math.floor(Math.random() * subscribers.length)]?.resume();
      }
    }, RESUME_EVERY_MS),
  );
}
timers.push(
  setInterval(() => console.log(JSON.stringify({ type: "counts", ...counts })), REPORT_EVERY_MS),
);

async function stop(): Promise<void> {
  if (stopping) return;
  stopping = true;
  for (const t of timers) clearInterval(t);
  for (const s of subscribers) s.close();
  await Promise.allSettled(loops);
  console.log(JSON.stringify({ type: "final", ...counts }));
  agent.destroy();
  process.exit(0);
}
process.stdin.on("end", stop);
process.stdin.resume();
process.on("SIGTERM", stop);
if (SECONDS > 0) setTimeout(stop, SECONDS * 1000);
