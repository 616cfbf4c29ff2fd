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

export async function openRaw(base: string): Promise<RawConnection> {
  const url = new URL(base);
  const socket = connect(Number(url.port), url.hostname);
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
