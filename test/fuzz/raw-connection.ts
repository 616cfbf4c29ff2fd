// Runs one raw script on a new connection and checks what came back:
// - every framed request is answered, in order, with the status it must get, unless an earlier
//   answer said `connection: close` (then nothing more is owed);
// - no answer is a 5xx; every 4xx carries the contract's body `{code, message, retryable}`;
// - once the client has said all it will (it half-closes), the gateway closes the connection;
// - and it returns what the 200 answers acked, and what a broken last request left unanswered
//   may have appended unseen, for the caller to hold the stream's tail to.
import assert from "node:assert/strict";
import { type Answer, openRaw, type RawConnection, readAnswers } from "../harness/raw-socket.ts";
import { type RawScript, STREAM_MARK } from "./raw-requests.ts";

/** How long a request may go unanswered, or a half-closed connection stay open. */
const DEADLINE_MS = 15_000;

export interface ConnectionResult {
  answers: Answer[];
  /** Records the 200 answers acked. */
  acked: number;
  /** Records the broken request may have appended unseen (it got no answer). */
  unseen: number;
}

/** Runs `script` with `stream` (a path to a stream holding a record or more) in its mark's place. */
export async function runScript(
  base: string,
  marked: RawScript,
  stream: string,
): Promise<ConnectionResult> {
  const script = withStream(marked, stream);
  const c = await openRaw(base);
  let closed = false;
  c.socket.once("close", () => {
    closed = true;
  });
  try {
    const methods = script.framed.map((r) => r.method);
    c.socket.write(
      script.framed.map((r) => r.bytes).join("") + (script.broken?.bytes ?? ""),
      "latin1",
    );
    const framedAnswered = () => {
      const { answers } = readAnswers(c.text(), methods, closed);
      return answers.length >= script.framed.length || closed || closesAfter(answers);
    };
    await until(c, framedAnswered, `answers to ${script.framed.length} requests`);
    c.socket.end();
    await until(c, () => closed, "the gateway to close the half-closed connection");
    const all = [...methods, script.broken ? methodOf(script.broken.bytes) : ""];
    const { answers } = readAnswers(c.text(), all, true);
    return check(script, answers);
  } finally {
    c.socket.destroy();
  }
}

function withStream(script: RawScript, stream: string): RawScript {
  const put = (bytes: string) => bytes.replaceAll(STREAM_MARK, stream);
  return {
    framed: script.framed.map((r) => ({ ...r, bytes: put(r.bytes) })),
    ...(script.broken && { broken: { ...script.broken, bytes: put(script.broken.bytes) } }),
  };
}

/** Resolves once `done()` holds, checked as bytes arrive and when the connection closes. */
function until(c: RawConnection, done: () => boolean, what: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const check = () => {
      if (!done()) return;
      stop();
      resolve();
    };
    const timer = setTimeout(() => {
      stop();
      reject(
        new Error(
          `no ${what} within ${DEADLINE_MS} ms; got ${JSON.stringify(c.text().slice(0, 2000))}`,
        ),
      );
    }, DEADLINE_MS);
    const stop = () => {
      clearTimeout(timer);
      c.socket.off("data", check);
      c.socket.off("close", check);
    };
    c.socket.on("data", check);
    c.socket.on("close", check);
    check();
  });
}

function methodOf(bytes: string): string {
  return bytes.slice(0, bytes.indexOf(" "));
}

function closesAfter(answers: Answer[]): boolean {
  return answers.some((a) => /close/i.test(a.headers.connection ?? ""));
}

function check(script: RawScript, answers: Answer[]): ConnectionResult {
  let acked = 0;
  const closedAt = answers.findIndex((a) => /close/i.test(a.headers.connection ?? ""));
  const owed = closedAt < 0 ? script.framed.length : Math.min(script.framed.length, closedAt + 1);
  assert.ok(answers.length >= owed, `${owed} answers owed, ${answers.length} came`);
  for (const [i, answer] of answers.entries()) {
    const request = script.framed[i];
    const what = `answer ${i} to ${JSON.stringify((request?.bytes ?? script.broken?.bytes ?? "").slice(0, 300))}: ${answer.head} ${answer.body.slice(0, 300)}`;
    assert.ok(answer.status >= 200 && answer.status < 500, what);
    if (answer.status >= 400 && request?.method !== "HEAD" && (request || answer.body !== "")) {
      const error = JSON.parse(answer.body);
      assert.equal(typeof error.code, "string", what);
      assert.equal(typeof error.message, "string", what);
      assert.equal(typeof error.retryable, "boolean", what);
    }
    if (request) {
      if (request.expect === "4xx") assert.ok(answer.status >= 400, what);
      else if (i < owed) assert.equal(answer.status, request.expect, what);
    }
    if (answer.status === 200 && request?.method === "POST") acked += ackedRecords(answer.body);
    if (!request && answer.status === 200 && answer.body.includes('"start"')) {
      acked += ackedRecords(answer.body);
    }
  }
  const brokenAnswered = script.broken !== undefined && answers.length > script.framed.length;
  const unseen = script.broken && !brokenAnswered ? script.broken.appends : 0;
  return { answers, acked, unseen };
}

/** Records acked by an append's answer: one ack, or an NDJSON session's ack lines. */
function ackedRecords(body: string): number {
  let records = 0;
  for (const line of body.split("\n")) {
    if (line === "") continue;
    const ack = JSON.parse(line);
    if (ack.start && ack.end) records += ack.end.seq_num - ack.start.seq_num;
  }
  return records;
}
