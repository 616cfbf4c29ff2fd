// One of the client processes `bench/sse.ts` spawns: it holds a share of the SSE subscribers and
// notes, for each subscriber and record, the wall-clock time the record arrived
// (performance.timeOrigin + performance.now(), comparable with the bench's own clock).
// Commands come on stdin, answers go to stdout, one JSON object a line:
//   {"cmd":"connect","kind":"nova"|"nchan","urls":[...],"rounds":R,"first":F,"concurrency":C,
//    "localAddress":A}
//     opens one subscriber per URL, C at a time, from source address A when given, and answers
//     {"type":"connected",...} once every one is ready (nova: its first `event: ping`, the
//     caught-up signal; nchan: its first bytes), with the first errors so far.
//   {"cmd":"await","idleMs":I,"capMs":T}
//     answers {"type":"report",...} once every subscriber has every record or its stream ended,
//     or once no record has arrived for I ms, or after T ms: the arrivals (subscriber-major, R per subscriber, NaN
//     for a record never seen) as the base64 of a Float64Array, with the records seen twice, the
//     errors, whether it stopped waiting, and this process's CPU seconds.
// A nova record is told by its seq_num (round = seq_num - F, from the batch's
// `id: <last seq_num>,<count>,<bytes>`); an nchan message by its body, which starts `r<round>:`.
// The process ends when its stdin does (the bench ended) or on {"cmd":"close"}.
import { type Socket, connect as tcpConnect } from "node:net";
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
const MAX_ERRORS = 5;

let arrivals = new Float64Array(0);
let rounds = 0;
let first = 0;
let kind: Kind = "nova";
/** Subscribers done: with every record, or with their stream over (ended or failed). */
let finished = 0;
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

// The subscribers are read straight off their sockets into one buffer (`onread`), with no HTTP
// client or stream machinery: on this 2-core machine they share the cores with the server under
// test, and what they spend per event the server does not get (docs/subscriptions.md).
const READ_BUFFER = Buffer.allocUnsafe(256 * 1024);
const NL = 0x0a;
const ID = Buffer.from("id: ");
const DATA_R = Buffer.from("data: r");
const DATA = Buffer.from("data: ");
const EVENT_PING = Buffer.from("event: ping");
const EVENT_ERROR = Buffer.from("event: error");
const HEAD_END = Buffer.from("\r\n\r\n");
/** A line a segment cuts off is kept for the next when shorter than this; markers fit. */
const MAX_CARRY = 64;

function startsWith(b: Buffer, at: number, end: number, prefix: Buffer): boolean {
  if (end - at < prefix.length) return false;
  for (let k = 0; k < prefix.length; k++) if (b[at + k] !== prefix[k]) return false;
  return true;
}

/** The decimal integer at `at` in `b` (up to `end` or the first non-digit), and where it ends. */
function integerAt(b: Buffer, at: number, end: number): [number, number] {
  let n = 0;
  let i = at;
  for (; i < end; i++) {
    const c = b[i] as number;
    if (c < 0x30 || c > 0x39) break;
    n = n * 10 + (c - 0x30);
  }
  return [n, i];
}

class Subscriber {
  readonly #index: number;
  readonly #url: URL;
  #socket: Socket | undefined;
  /** The response head, until it is whole. */
  #head: Buffer | undefined = Buffer.alloc(0);
  /** The start of a line the last segment cut off, when short. */
  #carry: Buffer | undefined;
  /** The last segment cut off a long line, read already: the next one starts inside it. */
  #skip = false;
  /** The response is chunked: where its framing stands. */
  #chunked = false;
  #chunkLeft = 0;
  #chunkSize = 0;
  #afterChunk = false;
  #inExtension = false;
  #seen = 0;
  #count = 0;
  #inError = false;
  #ready = false;
  #onReady: (ok: boolean) => void = () => {};
  #closed = false;
  #finished = false;

  readonly #localAddress: string | undefined;

  constructor(index: number, url: string, localAddress: string | undefined) {
    this.#index = index;
    this.#url = new URL(url);
    this.#localAddress = localAddress;
  }

  /** Resolves true once ready, false when the subscription failed before. */
  open(): Promise<boolean> {
    return new Promise((resolve) => {
      this.#onReady = (ok) => {
        this.#onReady = () => {};
        resolve(ok);
      };
      const { hostname, port, pathname, search, host } = this.#url;
      const socket = tcpConnect({
        host: hostname,
        port: Number(port),
        ...(this.#localAddress ? { localAddress: this.#localAddress } : {}),
        onread: {
          buffer: READ_BUFFER,
          callback: (n: number, buf: Uint8Array) => {
            this.#onData(buf as Buffer, n);
            return true;
          },
        },
      });
      socket.setNoDelay(true);
      socket.on("connect", () => {
        socket.write(
          `GET ${pathname}${search} HTTP/1.1\r\nhost: ${host}\r\naccept: text/event-stream\r\n\r\n`,
        );
      });
      socket.on("error", (err) => this.#fail(`socket: ${err.message}`));
      socket.on("end", () =>
        this.#fail(this.#head ? "closed before a head" : "the event stream ended"),
      );
      this.#socket = socket;
    });
  }

  close(): void {
    this.#closed = true;
    this.#socket?.destroy();
  }

  #fail(what: string): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#socket?.destroy();
    if (this.#ready) counts.ended++;
    else counts.failed++;
    this.#finish();
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
    if (++this.#seen === rounds) this.#finish();
  }

  /** Nothing more will arrive: every record did, or the stream is over. */
  #finish(): void {
    if (this.#finished) return;
    this.#finished = true;
    finished++;
  }

  #onData(read: Buffer, n: number): void {
    const at = now();
    let b = read.subarray(0, n);
    let start = 0;
    if (this.#head) {
      b = Buffer.concat([this.#head, b]);
      const headEnd = b.indexOf(HEAD_END);
      if (headEnd < 0) {
        this.#head = b;
        return;
      }
      this.#head = undefined;
      const head = b.toString("latin1", 0, headEnd);
      const status = head.slice(9, 12);
      if (status !== "200") {
        const body = b.toString("utf8", headEnd + 4, Math.min(b.length, headEnd + 304));
        this.#fail(`${status} ${body}`);
        return;
      }
      this.#chunked = /\r\ntransfer-encoding:\s*chunked/i.test(head);
      if (kind === "nchan") this.#setReady();
      start = headEnd + 4;
    }
    if (kind === "nchan" && !this.#ready) this.#setReady();
    if (!this.#chunked) {
      this.#segment(b.subarray(start), at);
      return;
    }
    // The chunked encoding's framing, undone: each chunk's data goes on as one segment.
    let i = start;
    const end = b.length;
    while (i < end) {
      if (this.#chunkLeft > 0) {
        const take = Math.min(this.#chunkLeft, end - i);
        this.#segment(b.subarray(i, i + take), at);
        i += take;
        this.#chunkLeft -= take;
        if (this.#chunkLeft === 0) this.#afterChunk = true;
        continue;
      }
      // A size line (hex digits, maybe an extension, CRLF), or the CRLF after a chunk's data.
      const c = b[i++] as number;
      if (c !== NL) {
        if (!this.#afterChunk && !this.#inExtension) {
          const digit = Number.parseInt(String.fromCharCode(c), 16);
          if (Number.isNaN(digit)) this.#inExtension = c !== 0x0d;
          else this.#chunkSize = this.#chunkSize * 16 + digit;
        }
        continue;
      }
      if (this.#afterChunk) {
        this.#afterChunk = false;
        continue;
      }
      this.#inExtension = false;
      if (this.#chunkSize === 0) {
        this.#fail("the event stream ended");
        return;
      }
      this.#chunkLeft = this.#chunkSize;
      this.#chunkSize = 0;
    }
  }

  /** Event-stream bytes, going on from the last segment's. */
  #segment(b: Buffer, at: number): void {
    let start = 0;
    if (this.#carry) {
      b = Buffer.concat([this.#carry, b]);
      this.#carry = undefined;
    } else if (this.#skip) {
      const nl = b.indexOf(NL);
      if (nl < 0) return;
      this.#skip = false;
      start = nl + 1;
    }
    this.#lines(b, start, at);
  }

  /** The lines of `b` from `start`, where one begins; a line cut off waits for the next segment. */
  #lines(b: Buffer, start: number, at: number): void {
    const end = b.length;
    let line = start;
    while (line < end) {
      const nl = b.indexOf(NL, line);
      if (nl < 0) {
        // Its start is all the markers need: a short one is kept, a long one read now.
        if (end - line < MAX_CARRY) {
          this.#carry = Buffer.from(b.subarray(line));
        } else {
          this.#line(b, line, end, at);
          this.#skip = true;
        }
        return;
      }
      this.#line(b, line, nl, at);
      line = nl + 1;
    }
  }

  #line(b: Buffer, at0: number, end: number, at: number): void {
    const c = b[at0];
    if (c === 0x69 /* i */ && kind === "nova" && startsWith(b, at0, end, ID)) {
      // id: <last seq_num>,<count>,<bytes>: the batch holds seq_nums last-n+1..last, where n
      // is how far count moved.
      const [last, comma] = integerAt(b, at0 + ID.length, end);
      const [count] = integerAt(b, comma + 1, end);
      const n = count - this.#count;
      this.#count = count;
      for (let seq = last - n + 1; seq <= last; seq++) this.#arrived(seq - first, at);
    } else if (c === 0x64 /* d */) {
      if (kind === "nchan" && startsWith(b, at0, end, DATA_R)) {
        this.#arrived(integerAt(b, at0 + DATA_R.length, end)[0], at);
      } else if (this.#inError && startsWith(b, at0, end, DATA)) {
        error(
          `subscriber ${this.#index}: error event ${b.toString("utf8", at0 + 6, Math.min(end, at0 + 306))}`,
        );
      }
    } else if (c === 0x65 /* e */) {
      this.#inError = startsWith(b, at0, end, EVENT_ERROR);
      if (!this.#ready && startsWith(b, at0, end, EVENT_PING)) this.#setReady();
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
  send({ type: "connected", ready, failed: counts.failed, errors, ms: now() - started });
}

async function report(idleMs: number, capMs: number): Promise<void> {
  const started = now();
  lastArrival = Math.max(lastArrival, started);
  while (finished < subscribers.length) {
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
    gaveUp: finished < subscribers.length,
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
