// A body the route answers without reading (unrouted methods and paths, a 415), followed by a
// pipelined request on the same connection, over raw sockets: the connection is either left
// usable (the next request answered) or closed after the answer with `connection: close`; never
// one that neither answers nor closes. Bodies up to UNREAD_BODY_DRAIN_BYTES keep it usable.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { UNREAD_BODY_DRAIN_BYTES } from "../../src/gateway/http/unread-body.ts";
import type { Gateway } from "../harness/gateway.ts";
import { newStream } from "../harness/http.ts";
import { openRaw, readAnswers } from "../harness/raw-socket.ts";
import { type Stack, startStack } from "../harness/stack.ts";
import { waitFor } from "../harness/wait.ts";

let stack: Stack<Gateway>;
let gw: Gateway;
let stream: string;

before(async () => {
  stack = await startStack("nova-unread-body-", { gateway: {} });
  gw = stack.gw;
  stream = await newStream(gw.base);
});
after(() => stack?.close());

const SIZES = [
  1,
  UNREAD_BODY_DRAIN_BYTES,
  UNREAD_BODY_DRAIN_BYTES + 1,
  // Around and past what the sockets' buffers hold on loopback.
  300 * 1024,
  600_000,
  5 * 1024 * 1024,
];

/** Sends `head` with a body of `size` bytes, then a pipelined GET /livez; how it ended. */
async function unreadThenNext(head: string, size: number) {
  const c = await openRaw(gw.base);
  try {
    c.socket.write(`${head}\r\nhost: x\r\ncontent-length: ${size}\r\n\r\n`);
    c.socket.write(Buffer.alloc(size, 0x61));
    c.socket.write("GET /livez HTTP/1.1\r\nhost: x\r\n\r\n");
    let closed = false;
    c.closed.then(() => {
      closed = true;
    });
    const method = head.split(" ")[0] as string;
    const ended = await waitFor(
      () => {
        const { answers } = readAnswers(c.text(), [method, "GET"], closed);
        return answers.length === 2 || closed ? { answers, closed } : undefined;
      },
      { timeoutMs: 15_000, message: `${head} with ${size} bytes: answered or closed` },
    );
    return ended;
  } finally {
    c.socket.destroy();
  }
}

const ROUTED_ELSEWHERE = [
  "TRACE /livez HTTP/1.1",
  "PROPFIND /livez HTTP/1.1",
  "MKCOL /v1/buckets HTTP/1.1",
  "POST /livez HTTP/1.1",
  "PUT /v1/buckets HTTP/1.1",
  "DELETE /nope HTTP/1.1",
  "GET /nope HTTP/1.1",
];

for (const head of ROUTED_ELSEWHERE) {
  test(`${head.split("\r\n")[0]} with a body it does not read: the connection answers the next request or closes`, async () => {
    for (const size of SIZES) {
      const { answers, closed } = await unreadThenNext(head, size);
      const first = answers[0];
      assert.ok(first, `${size} bytes: the request was answered`);
      assert.ok(first.status >= 400 && first.status < 500, `${size} bytes: ${first.head}`);
      if (size <= UNREAD_BODY_DRAIN_BYTES) {
        assert.equal(answers.length, 2, `${size} bytes: drained, the next request answered`);
      }
      if (answers.length === 2) {
        assert.equal(answers[1]?.status, 200, `${size} bytes: ${answers[1]?.head}`);
      } else {
        assert.ok(closed, `${size} bytes: closed`);
        assert.equal(first.headers.connection, "close", `${size} bytes: ${first.head}`);
      }
    }
  });
}

test("an append with a content type it does not take (415): the connection answers the next request or closes", async () => {
  for (const size of SIZES) {
    const { answers, closed } = await unreadThenNext(
      `POST ${stream}/records HTTP/1.1\r\ncontent-type: text/plain`,
      size,
    );
    assert.equal(answers[0]?.status, 415, `${size} bytes`);
    if (size <= UNREAD_BODY_DRAIN_BYTES) assert.equal(answers[1]?.status, 200, `${size} bytes`);
    else if (answers.length < 2) assert.ok(closed && answers[0]?.headers.connection === "close");
  }
});

test("a request refused before its body is guarded, its body trickling: answered, then closed", async () => {
  for (const [target, more] of [
    [`${stream}/records?x=%FF`, ""],
    ["/v1/buckets/%E0%A4%A/streams", ""],
    [`${stream}/records`, "content-encoding: gzip\r\n"],
  ] as const) {
    const c = await openRaw(gw.base);
    try {
      let closed = false;
      c.closed.then(() => {
        closed = true;
      });
      // One chunk of a body that never ends: nothing but the answer can end the connection.
      c.socket.write(
        `POST ${target} HTTP/1.1\r\nhost: x\r\n${more}transfer-encoding: chunked\r\n\r\n`,
      );
      c.socket.write("1\r\na\r\n");
      const ended = await waitFor(
        () => {
          const { answers } = readAnswers(c.text(), ["POST"], closed);
          return closed && answers.length === 1 ? answers : undefined;
        },
        { timeoutMs: 15_000, message: `${target}: answered and closed` },
      );
      assert.equal(ended[0]?.status, more ? 415 : 400, ended[0]?.head);
      assert.equal(ended[0]?.headers.connection, "close", ended[0]?.head);
      assert.equal(ended[0]?.headers["keep-alive"], undefined, ended[0]?.head);
    } finally {
      c.socket.destroy();
    }
  }
});
