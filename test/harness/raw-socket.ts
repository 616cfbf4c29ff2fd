// Test support: a raw TCP connection to a gateway, for what an HTTP client would not send
// (stalled bodies, malformed requests, pipelined requests) and for reading the answer as bytes.
import { connect, type Socket } from "node:net";

export interface RawConnection {
  socket: Socket;
  /** Everything the gateway has sent so far, as latin1. */
  text(): string;
  /** Resolves when the connection closes, from either side. */
  closed: Promise<void>;
}

/** Connects to `base`, from `localAddress` when given (127.0.0.x on loopback). */
export async function openRaw(base: string, localAddress?: string): Promise<RawConnection> {
  const url = new URL(base);
  const socket = connect({
    port: Number(url.port),
    host: url.hostname,
    ...(localAddress ? { localAddress } : {}),
  });
  socket.setEncoding("latin1");
  let text = "";
  socket.on("data", (d: string) => {
    text += d;
  });
  socket.on("error", () => {});
  const closed = new Promise<void>((resolve) => socket.once("close", () => resolve()));
  await new Promise((resolve) => socket.once("connect", resolve));
  return { socket, text: () => text, closed };
}

/** An HTTP/1.1 answer's status, head and JSON body. */
export function parseAnswer(text: string): {
  status: number;
  head: string;
  body: Record<string, unknown>;
} {
  const split = text.indexOf("\r\n\r\n");
  if (split < 0) throw new Error(`no answer came: ${JSON.stringify(text)}`);
  return {
    status: Number(text.slice(9, 12)),
    head: text.slice(0, split),
    body: JSON.parse(text.slice(split + 4)),
  };
}

/** One response read off a connection. */
export interface Answer {
  status: number;
  /** The status line and header lines, without the blank line. */
  head: string;
  /** Header names in lower case; the last value of a repeated header. */
  headers: Record<string, string>;
  /** The body as latin1 text, de-chunked. */
  body: string;
}

/**
 * The complete responses in `text`, read in order as the answers to requests whose methods are
 * `methods` (a HEAD answer has no body); what follows them is `rest`. A response closed by the
 * end of the connection (no length, not chunked) is complete only when `closed`.
 */
export function readAnswers(
  text: string,
  methods: readonly string[],
  closed = false,
): { answers: Answer[]; rest: string } {
  const answers: Answer[] = [];
  let at = 0;
  for (;;) {
    const split = text.indexOf("\r\n\r\n", at);
    if (split < 0) break;
    const head = text.slice(at, split);
    const headers: Record<string, string> = {};
    for (const line of head.split("\r\n").slice(1)) {
      const colon = line.indexOf(":");
      if (colon > 0) headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
    }
    const status = Number(head.slice(9, 12));
    let next = split + 4;
    let body = "";
    const bodiless =
      methods[answers.length] === "HEAD" || status === 204 || status === 304 || status < 200;
    if (bodiless) {
      // Nothing follows the head.
    } else if (/chunked/i.test(headers["transfer-encoding"] ?? "")) {
      const chunks = dechunk(text, next);
      if (!chunks) break;
      body = chunks.body;
      next = chunks.next;
    } else if (headers["content-length"] !== undefined) {
      const length = Number(headers["content-length"]);
      if (text.length < next + length) break;
      body = text.slice(next, next + length);
      next += length;
    } else {
      if (!closed) break;
      body = text.slice(next);
      next = text.length;
    }
    answers.push({ status, head, headers, body });
    at = next;
  }
  return { answers, rest: text.slice(at) };
}

function dechunk(text: string, from: number): { body: string; next: number } | undefined {
  let at = from;
  let body = "";
  for (;;) {
    const eol = text.indexOf("\r\n", at);
    if (eol < 0) return undefined;
    const size = Number.parseInt(text.slice(at, eol), 16);
    at = eol + 2;
    if (size === 0) {
      // Trailers, then a blank line.
      const end = text.indexOf("\r\n\r\n", at - 2);
      return end < 0 ? undefined : { body, next: end + 4 };
    }
    if (text.length < at + size + 2) return undefined;
    body += text.slice(at, at + size);
    at += size + 2;
  }
}
