// The connection an NDJSON append session ran on, over raw sockets: after the session it carries
// the next request, also when the session stopped early and the client finished its body later;
// it closes only where no request can follow (a refusal that says `connection: close`, a client
// that never finishes its body), never with a request left unanswered.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { type Gateway, inProcessGateway } from "../harness/gateway.ts";
import { http, newStream } from "../harness/http.ts";
import { openRaw, type RawConnection, readAnswers } from "../harness/raw-socket.ts";
import { type Stack, startStack } from "../harness/stack.ts";
import { waitFor } from "../harness/wait.ts";

// A gateway whose body idle bound no test reaches, however loaded the machine, and one that
// closes a silent client's connection soon: the test of that bound waits for it.
const IDLE_MS = 30_000;
const BRIEF_IDLE_MS = 800;

let stack: Stack<Gateway>;
let gw: Gateway;
let brief: Gateway;

before(async () => {
  stack = await startStack("nova-ndjson-conn-", {
    gateway: { bodyTimeouts: { idleMs: IDLE_MS, totalMs: 60_000 } },
  });
  gw = stack.gw;
  brief = await inProcessGateway([stack.star.address], {
    bodyTimeouts: { idleMs: BRIEF_IDLE_MS, totalMs: 60_000 },
  });
});
after(async () => {
  await brief?.close();
  await stack?.close();
});

const line = (body: unknown) => `${JSON.stringify({ records: [{ body }] })}\n`;
const chunk = (text: string) => `${Buffer.byteLength(text).toString(16)}\r\n${text}\r\n`;
const LAST_CHUNK = "0\r\n\r\n";
const LIVEZ = "GET /livez HTTP/1.1\r\nhost: x\r\n\r\n";

function sessionHead(path: string): string {
  return (
    `POST ${path}/records HTTP/1.1\r\nhost: x\r\ncontent-type: application/x-ndjson\r\n` +
    "transfer-encoding: chunked\r\n\r\n"
  );
}

/** The answers on a connection so far (its requests are all POSTs and GETs). */
const answers = (c: RawConnection) => readAnswers(c.text(), []).answers;

async function tail(path: string): Promise<number> {
  return (await http(gw.base, "GET", `${path}/records/tail`)).json.tail.seq_num;
}

test("a finished session leaves its connection to the next request, pipelined or not", async () => {
  const s = await newStream(gw.base);
  const c = await openRaw(gw.base);
  try {
    c.socket.write(sessionHead(s) + chunk(line("a") + line("b")) + LAST_CHUNK);
    await waitFor(() => answers(c).length === 1);
    c.socket.write(sessionHead(s) + chunk(line("c")) + LAST_CHUNK + LIVEZ);
    await waitFor(() => answers(c).length === 3);
    const [first, second, third] = answers(c);
    assert.equal(first?.status, 200);
    assert.match(first?.body ?? "", /"end":\{"reason":"done","batches":2\}/);
    assert.match(second?.body ?? "", /"end":\{"reason":"done","batches":1\}/);
    assert.equal(third?.status, 200);
    assert.equal(third?.body, '{"status":"ok"}');
    assert.equal(c.socket.destroyed, false);
    assert.equal(await tail(s), 3);
  } finally {
    c.socket.destroy();
  }
});

test("a session that stopped at a bad line reads the rest of the body, then serves the next request", async () => {
  const s = await newStream(gw.base);
  const c = await openRaw(gw.base);
  try {
    c.socket.write(sessionHead(s) + chunk(`${line("a")}{"records":5}\n`));
    await waitFor(() => answers(c).length === 1);
    assert.match(answers(c)[0]?.body ?? "", /"end":\{"reason":"error","batches":2\}/);
    // The client only now sends the rest of its body, and a request after it.
    c.socket.write(chunk(line("ignored").repeat(1000)) + LAST_CHUNK + LIVEZ);
    await waitFor(() => answers(c).length === 2);
    assert.equal(answers(c)[1]?.status, 200);
    assert.equal(c.socket.destroyed, false);
    assert.equal(await tail(s), 1, "nothing after the bad line was appended");
  } finally {
    c.socket.destroy();
  }
});

test("a client that never finishes the body of a stopped session has its connection closed after the idle bound", async () => {
  const s = await newStream(brief.base);
  const c = await openRaw(brief.base);
  try {
    c.socket.write(sessionHead(s) + chunk('{"records":5}\n'));
    await c.closed;
    const [only, ...others] = answers(c);
    assert.equal(only?.status, 200);
    assert.match(only?.body ?? "", /"reason":"error"/);
    assert.deepEqual(others, []);
  } finally {
    c.socket.destroy();
  }
});

test("a session refused before it began, its body still coming, says connection: close", async () => {
  const s = await newStream(gw.base);
  const c = await openRaw(gw.base);
  try {
    const missing = s.replace(/\/streams\/s$/, "/streams/missing");
    c.socket.write(sessionHead(missing) + chunk(line("a")));
    await c.closed;
    const [only, ...others] = answers(c);
    assert.equal(only?.status, 404);
    assert.match(only?.head ?? "", /\r\nconnection: close/i);
    assert.equal(JSON.parse(only?.body ?? "").code, "stream_not_found");
    assert.deepEqual(others, []);
  } finally {
    c.socket.destroy();
  }
});
