// --max-connections over raw sockets: the connection past the limit gets a 503 in the
// contract's body and is closed; once one closes, the next is served.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { Gateway } from "../harness/gateway.ts";
import { openRaw } from "../harness/raw-socket.ts";
import { type Stack, startStack } from "../harness/stack.ts";
import { waitFor } from "../harness/wait.ts";

let stack: Stack<Gateway>;
let gw: Gateway;

before(async () => {
  stack = await startStack("nova-conn-limit-", { gateway: { maxConnections: 3 } });
  gw = stack.gw;
});
after(() => stack?.close());

const open = () => openRaw(gw.base);

const livez = (host: string) => `GET /livez HTTP/1.1\r\nhost: ${host}\r\n\r\n`;

test("the connection past --max-connections gets 503 unavailable and is closed; a freed slot serves again", async () => {
  const host = new URL(gw.base).host;
  const held = [await open(), await open(), await open()];
  try {
    held[0]?.socket.write(livez(host));
    await waitFor(() => held[0]?.text().includes("\r\n\r\n"), { message: "the first answered" });
    assert.match(held[0]?.text() ?? "", /^HTTP\/1\.1 200 /);
    const refused = await open();
    refused.socket.write(livez(host));
    await refused.closed;
    const text = refused.text();
    assert.match(text, /^HTTP\/1\.1 503 /);
    assert.match(text, /\r\nretry-after: 1\r\n/);
    assert.match(text, /\r\nconnection: close\r\n/);
    assert.deepEqual(JSON.parse(text.slice(text.indexOf("\r\n\r\n") + 4)), {
      code: "unavailable",
      message:
        "this gateway holds its 3 connections (--max-connections); retry, or use another gateway",
      retryable: true,
    });
    held[1]?.socket.destroy();
    await held[1]?.closed;
    await waitFor(
      async () => {
        const next = await open();
        // Destroyed whatever happens: a socket left open would hold the slot being waited for.
        try {
          next.socket.write(livez(host));
          await waitFor(() => next.text().includes("\r\n\r\n") || next.socket.destroyed, {
            message: "an answer, or the connection closed",
          });
          return /^HTTP\/1\.1 200 /.test(next.text());
        } finally {
          next.socket.destroy();
        }
      },
      { message: "a connection served once a slot was free" },
    );
  } finally {
    for (const h of held) h.socket.destroy();
  }
});
