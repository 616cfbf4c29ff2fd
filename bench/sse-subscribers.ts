// One of the client processes `bench/sse.ts` spawns: it holds a share of the SSE subscribers and
// notes, for each subscriber and record, the wall-clock time the record arrived
// (performance.timeOrigin + performance.now(), comparable with the bench's own clock).
// Commands come on stdin, answers go to stdout, one JSON object a line:
//   {"cmd":"connect","kind":"nova"|"nchan","urls":[...],"rounds":R,"first":F,"concurrency":C,
//    "localAddress":A}
//     opens one subscriber per URL, C at a time, from source address A when given, and answers
//     {"type":"connected",...} once every one is ready (nova: its first `event: ping`, the
//     caught-up signal; nchan: its first bytes).
//   {"cmd":"await","idleMs":I,"capMs":T}
//     answers {"type":"report",...} once every subscriber has every record, or once no record
//     has arrived for I ms, or after T ms: the arrivals (subscriber-major, R per subscriber, NaN
//     for a record never seen) as the base64 of a Float64Array, with the records seen twice, the
//     errors, whether it stopped waiting, and this process's CPU seconds.
// A nova record is told by its seq_num (round = seq_num - F, from the batch's
// `id: <last seq_num>,<count>,<bytes>`); an nchan message by its body, which starts `r<round>:`.
// The process ends when its stdin does (the bench ended) or on {"cmd":"close"}.
import { Agent, type ClientRequest, get, type IncomingMessage } from "node:http";
import { createInterface } from "node:readline";

type Kind = "nova" | "nchan";

interface Connect {
  cmd: "connect";
  kind: Kind;
  urls: string[];
  rounds: number;
  first: number;
  concurrency: number;
  localAddress?: string;
}

type Command = Connect | { cmd: "await"; idleMs: number; capMs: number } | { cmd: "close" };

const now = () => performance.timeOrigin + performance.now();
const agent = new Agent({ keepAlive: false, maxSockets: Number.POSITIVE_INFINITY });
const MAX_ERRORS = 5;

let arrivals = new Float64Array(0);
let rounds = 0;
let first = 0;
let kind: Kind = "nova";
let complete = 0;
let lastArrival = 0;
let subscribers: Subscriber[] = [];
const errors: string[] = [];
const counts = { failed: 0, ended: 0, repeated: 0, extra: 0 };

function error(what: string): void {
  if (errors.length < MAX_ERRORS) errors.push(what);
}

function send(message: object): void {
  process.stdout.write(`${JSON.stringify(message)}\n`);
}

class Subscriber {
  readonly #index: number;
  readonly #url: string;
  #req: ClientRequest | undefined;
  #res: IncomingMessage | undefined;
  #buffer = "";
  #seen = 0;
  #count = 0;
  #event = "";
  #ready = false;
  #onReady: (ok: boolean) => void = () => {};
  #closed = false;

  readonly #localAddress: string | undefined;

  constructor(index: number, url: string, localAddress: string | undefined) {
    this.#index = index;
    this.#url = url;
    this.#localAddress = localAddress;
  }

  /** Resolves true once ready, false when the subscription failed before. */
  open(): Promise<boolean> {
    return new Promise((resolve) => {
      this.#onReady = (ok) => {
        this.#onReady = () => {};
        resolve(ok);
      };
      const options = {
        agent,
        headers: { accept: "text/event-stream" },
        ...(this.#localAddress ? { localAddress: this.#localAddress } : {}),
      };
      const req = get(this.#url, options, (res) => {
        this.#res = res;
        if (res.statusCode !== 200) {
          let body = "";
          res.setEncoding("utf8");
          res.on("data", (c: string) => {
            body += c;
          });
          res.on("end", () => this.#fail(`${res.statusCode} ${body.slice(0, 200)}`));
          res.on("error", () => this.#fail(`status ${res.statusCode}`));
          return;
        }
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => this.#onData(chunk));
        res.on("error", (err) => this.#fail(`response: ${err.message}`));
        res.on("end", () => this.#fail("the event stream ended"));
      });
      req.on("error", (err) => this.#fail(`request: ${err.message}`));
      this.#req = req;
    });
  }

  close(): void {
    this.#closed = true;
    this.#res?.destroy();
    this.#req?.destroy();
  }

  #fail(what: string): void {
    if (this.#closed) return;
    this.#closed = true;
    if (this.#ready) counts.ended++;
    else counts.failed++;
    error(`subscriber ${this.#index}: ${what}`);
    this.#onReady(false);
  }

  #arrived(round: number, at: number): void {
    if (round < 0 || round >= rounds) {
      counts.extra++;
      return;
    }
    const slot = this.#index * rounds + round;
    if (!Number.isNaN(arrivals[slot] as number)) {
      counts.repeated++;
      return;
    }
    arrivals[slot] = at;
    lastArrival = at;
    if (++this.#seen === rounds) complete++;
  }

  #onData(chunk: string): void {
    const at = now();
    if (kind === "nchan" && !this.#ready) this.#setReady();
    this.#buffer += chunk;
    const lines = this.#buffer.split("\n");
    this.#buffer = lines.pop() ?? "";
    for (const line of lines) {
      if (line.startsWith("event: ")) {
        this.#event = line.slice(7);
        if (this.#event === "ping" && !this.#ready) this.#setReady();
      } else if (line === "") {
        this.#event = "";
      } else if (kind === "nova" && line.startsWith("id: ")) {
        // id: <last seq_num>,<count>,<bytes>: the batch holds seq_nums last-n+1..last, where n
        // is how far count moved.
        const [last, count] = line.slice(4).split(",").map(Number) as [number, number];
        const n = count - this.#count;
        this.#count = count;
        for (let seq = last - n + 1; seq <= last; seq++) this.#arrived(seq - first, at);
      } else if (kind === "nchan" && line.startsWith("data: r")) {
        this.#arrived(Number.parseInt(line.slice(7), 10), at);
      } else if (this.#event === "error" && line.startsWith("data: ")) {
        error(`subscriber ${this.#index}: error event ${line.slice(6, 300)}`);
      }
    }
  }

  #setReady(): void {
    this.#ready = true;
    this.#onReady(true);
  }
}

async function connect(cmd: Connect): Promise<void> {
  kind = cmd.kind;
  rounds = cmd.rounds;
  first = cmd.first;
  arrivals = new Float64Array(cmd.urls.length * rounds).fill(Number.NaN);
  subscribers = cmd.urls.map((url, i) => new Subscriber(i, url, cmd.localAddress));
  const started = now();
  let ready = 0;
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(cmd.concurrency, subscribers.length) }, async () => {
      while (next < subscribers.length) {
        const s = subscribers[next++] as Subscriber;
        if (await s.open()) ready++;
      }
    }),
  );
  send({ type: "connected", ready, failed: counts.failed, ms: now() - started });
}

async function report(idleMs: number, capMs: number): Promise<void> {
  const started = now();
  lastArrival = Math.max(lastArrival, started);
  while (complete < subscribers.length) {
    const at = now();
    if (at - lastArrival > idleMs || at - started > capMs) break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const cpu = process.cpuUsage();
  send({
    type: "report",
    arrivals: Buffer.from(arrivals.buffer, arrivals.byteOffset, arrivals.byteLength).toString(
      "base64",
    ),
    ...counts,
    errors,
    gaveUp: complete < subscribers.length,
    cpuS: (cpu.user + cpu.system) / 1e6,
  });
}

const lines = createInterface({ input: process.stdin });
lines.on("line", (line) => {
  const cmd = JSON.parse(line) as Command;
  if (cmd.cmd === "connect") void connect(cmd);
  else if (cmd.cmd === "await") void report(cmd.idleMs, cmd.capMs);
  else {
    for (const s of subscribers) s.close();
    process.exit(0);
  }
});
lines.on("close", () => process.exit(0));
