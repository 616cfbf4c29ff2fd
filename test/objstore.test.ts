import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import {
  createServer as createHttpServer,
  type IncomingMessage,
  type ServerResponse,
} from "node:http";
import { connect, createServer as createNetServer, type Server, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { HeadObjectCommand, PutObjectCommand, S3Client } from "@aws-sdk/client-s3";
import fc from "fast-check";
import { request } from "undici";
import { LOCK_FILE } from "../src/platform/objstore/dir-lock.ts";
import {
  createS3Store,
  ensureS3Bucket,
  ObjectStoreError,
  type ObjectStoreErrorKind,
  openS3rver,
  type RunningS3rver,
  startS3rver,
} from "../src/platform/objstore/index.ts";
import { signedHeaders as signed } from "../src/platform/objstore/signed-request.test-helper.ts";
import { describeObjectStoreContract } from "../src/platform/objstore/store-contract.test-helper.ts";
import { freePort } from "./harness/ports.ts";
import { nodeArgs, startProcess } from "./harness/process.ts";
import { tempDir } from "./harness/tmp.ts";
import { waitFor } from "./harness/wait.ts";

// One s3rver for the file. Its cleanup is registered here, at the top level: node:test attaches an
// `after` called from inside a hook to whichever test is running.
let dataDir: string | undefined;
let s3: RunningS3rver | undefined;
before(async () => {
  dataDir = await mkdtemp(join(tmpdir(), "nova-test-"));
  s3 = await startS3rver({ dataDir, buckets: ["contract", "local", "fixes", "reads"] });
});
after(async () => {
  await s3?.close();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

const s3url = (): string => {
  if (!s3) throw new Error("s3rver did not start");
  return s3.url;
};

describeObjectStoreContract("S3 over s3rver", {
  open: () => createS3Store({ endpoint: s3url(), bucket: "contract" }),
  fetchUrl: (url) => fetchOk(url),
  // In place: the same objects as S3's PUTs would make ("s3rver in place and over HTTP are one
  // store", below), listed and deleted over HTTP.
  seed: async (keys) => {
    const local = (s3 as RunningS3rver).localStore("contract");
    try {
      for (const key of keys) await local.put(key, Buffer.from(key, "utf8"));
    } finally {
      local.close();
    }
  },
});

const fetchOk = async (url: string): Promise<Buffer | undefined> => {
  const res = await request(url);
  const body = Buffer.from(await res.body.arrayBuffer());
  return res.statusCode === 200 ? body : undefined;
};

describeObjectStoreContract("s3rver's files in place (the process running it)", {
  open: () => (s3 as RunningS3rver).localStore("local"),
  fetchUrl: fetchOk,
});

describe("an embedded store serves S3's HTTP API from its first presigned URL on", () => {
  test("it reads and writes in place before; the URL then serves what was written", async (t) => {
    const opened = await openS3rver({ dataDir: await tempDir(t), buckets: ["lazy"] });
    t.after(() => opened.close());
    const store = opened.localStore("lazy");
    await store.put("a/one", Buffer.from("first"));
    assert.deepEqual(await store.get("a/one"), Buffer.from("first"));
    assert.deepEqual(
      (await store.list("a/")).objects.map((o) => o.key),
      ["a/one"],
    );
    const url = await store.presignGet("a/one", 60);
    assert.deepEqual(await fetchOk(url), Buffer.from("first"));
    const served = await opened.serve();
    assert.equal(new URL(url).origin, served);
    assert.equal(await opened.serve(), served, "one server, however often asked");
    // Written over HTTP, read in place: one store both ways.
    const two = `${served}/lazy/a/two`;
    const put = await request(two, { method: "PUT", body: "second", headers: signed("PUT", two) });
    assert.equal(put.statusCode, 200);
    await put.body.dump();
    assert.deepEqual(await store.get("a/two"), Buffer.from("second"));
  });

  test("a conditional write goes by the bytes in place, whatever a torn .md5 beside them says", async (t) => {
    const dir = await tempDir(t);
    const opened = await openS3rver({ dataDir: dir, buckets: ["lazy"] });
    t.after(() => opened.close());
    const store = opened.localStore("lazy");
    await store.put("k", Buffer.from("old"));
    // A kill -9 between a PUT's two renames: the new checksum beside the old bytes.
    await writeFile(join(dir, "lazy", "k._S3rver_object.md5"), "0123456789abcdef0123456789abcdef");
    const seen = await store.getVersioned("k");
    assert.ok(seen);
    assert.notEqual(await store.putIf("k", Buffer.from("new"), { ifMatch: seen.etag }), undefined);
    assert.deepEqual(await store.get("k"), Buffer.from("new"));
  });

  test("it closes whether or not it served; once closed, its URL answers no more", async (t) => {
    const quiet = await openS3rver({ dataDir: await tempDir(t), buckets: ["lazy"] });
    await quiet.localStore("lazy").put("k", Buffer.from("x"));
    await quiet.close();
    const opened = await openS3rver({ dataDir: await tempDir(t), buckets: ["lazy"] });
    const store = opened.localStore("lazy");
    await store.put("k", Buffer.from("x"));
    const url = await store.presignGet("k", 60);
    assert.deepEqual(await fetchOk(url), Buffer.from("x"));
    // Asked twice at once (a second signal while the first close runs): closed once.
    await Promise.all([opened.close(), opened.close()]);
    await opened.close();
    await assert.rejects(request(url), /ECONNREFUSED/);
    await assert.rejects(store.get("k"), (err: unknown) => err instanceof ObjectStoreError);
  });
});

describe("s3rver in place and over HTTP are one store", () => {
  const both = (t: { after(fn: () => void): void }) => {
    const local = (s3 as RunningS3rver).localStore("local");
    const remote = createS3Store({ endpoint: s3url(), bucket: "local" });
    t.after(() => {
      local.close();
      remote.close();
    });
    return { local, remote, p: `both-${Math.random().toString(36).slice(2)}/` };
  };

  test("a key segment as long as a star's (200 characters) is stored, in place and over HTTP", async (t) => {
    const { local, remote, p } = both(t);
    // The star's longest key segment (storage/keys.ts), with s3rver's longest file suffix and
    // a part file's tag, must still fit a file name (255 bytes).
    const long = "v".repeat(200);
    for (const [store, side] of [
      [local, "here"],
      [remote, "http"],
    ] as const) {
      const key = `${p}${side}/${long}`;
      const etag = await store.putIf(key, Buffer.from(side), { ifNoneMatch: "*" });
      assert.ok(etag, side);
      await store.put(key, Buffer.from(`${side} again`));
      assert.deepEqual(await local.get(key), Buffer.from(`${side} again`), side);
      assert.deepEqual(await remote.get(key), Buffer.from(`${side} again`), side);
    }
  });

  test("what one side writes the other reads, bytes and ETag alike", async (t) => {
    const { local, remote, p } = both(t);
    const etag = await local.putIf(`${p}a`, Buffer.from("from here"), { ifNoneMatch: "*" });
    assert.deepEqual(await remote.getVersioned(`${p}a`), { body: Buffer.from("from here"), etag });
    await remote.put(`${p}b`, Buffer.from("from afar"));
    assert.deepEqual(await local.get(`${p}b`), Buffer.from("from afar"));
    assert.deepEqual(
      (await local.list(p)).objects.map((o) => o.key),
      [`${p}a`, `${p}b`],
    );
    await local.delete([`${p}a`]);
    assert.equal(await remote.get(`${p}a`), undefined);
  });

  test("conditional writes racing from both sides on one key: exactly one wins", async (t) => {
    const { local, remote, p } = both(t);
    const racers = Array.from({ length: 12 }, (_, i) =>
      (i % 2 === 0 ? local : remote).putIf(`${p}k`, Buffer.from(`c${i}`), { ifNoneMatch: "*" }),
    );
    const created = await Promise.all(racers);
    assert.equal(created.filter((e) => e !== undefined).length, 1);
    const read = await local.getVersioned(`${p}k`);
    assert.ok(read);
    const replaced = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        (i % 2 === 0 ? remote : local).putIf(`${p}k`, Buffer.from(`r${i}`), {
          ifMatch: read.etag,
        }),
      ),
    );
    const winners = replaced.flatMap((e, i) => (e === undefined ? [] : [i]));
    assert.equal(winners.length, 1);
    assert.equal((await remote.get(`${p}k`))?.toString(), `r${winners[0]}`);
  });

  test("S3's default metadata has no file and reads back as itself; other metadata has one", async (t) => {
    const { local, remote, p } = both(t);
    const sdk = new S3Client({
      endpoint: s3url(),
      region: "us-east-1",
      forcePathStyle: true,
      credentials: { accessKeyId: "S3RVER", secretAccessKey: "S3RVER" },
      requestChecksumCalculation: "WHEN_REQUIRED",
      responseChecksumValidation: "WHEN_REQUIRED",
    });
    t.after(() => sdk.destroy());
    const contentType = async (key: string) =>
      (await sdk.send(new HeadObjectCommand({ Bucket: "local", Key: key }))).ContentType;
    const metadataFile = (key: string) =>
      existsSync(join(dataDir as string, "local", `${key}._S3rver_metadata.json`));
    await local.put(`${p}a`, Buffer.from("in place"));
    await remote.put(`${p}b`, Buffer.from("over HTTP"));
    for (const key of [`${p}a`, `${p}b`]) {
      assert.equal(metadataFile(key), false, key);
      assert.equal(await contentType(key), "application/octet-stream", key);
    }
    const c = `${p}c`;
    await sdk.send(
      new PutObjectCommand({ Bucket: "local", Key: c, Body: "text", ContentType: "text/plain" }),
    );
    assert.equal(metadataFile(c), true);
    assert.equal(await contentType(c), "text/plain");
    // A PUT with the default over it leaves no file of the version before.
    await local.put(c, Buffer.from("bytes"));
    assert.equal(metadataFile(c), false);
    assert.equal(await contentType(c), "application/octet-stream");
    assert.deepEqual(await remote.getVersioned(c), await local.getVersioned(c));
  });

  test("over HTTP, a request with no signature is refused, and one with a . or .. key segment", async (t) => {
    const { local, remote, p } = both(t);
    const before = await readdir(join(dataDir as string));
    for (const [method, path] of [
      ["GET", "/local?prefix="],
      ["PUT", `/local/${p}unsigned`],
      ["DELETE", `/local/${p}unsigned`],
      ["PUT", "/local/..%2F..%2Fescape"],
    ] as const) {
      const res = await request(`${s3url()}${path}`, {
        method,
        ...(method === "PUT" ? { body: "x" } : {}),
      });
      assert.equal(res.statusCode, 403, `${method} ${path}`);
      assert.match(await res.body.text(), /AccessDenied/);
    }
    for (const key of [`${p}../escape`, `${p}a/./b`, "../../escape"]) {
      await assert.rejects(remote.put(key, Buffer.from("x")), key);
    }
    assert.deepEqual((await local.list(p)).objects, []);
    assert.deepEqual(await readdir(join(dataDir as string)), before, "nothing beside the buckets");
    assert.equal(existsSync(join(dataDir as string, "..", "escape._S3rver_object")), false);
  });

  test('a key with a "." or ".." segment is refused in place, naming the key, and writes nothing', async (t) => {
    const { local, p } = both(t);
    for (const key of [`${p}../escape`, `${p}./x`, "../outside", `${p}a/../b`]) {
      await assert.rejects(
        local.put(key, Buffer.from("x")),
        (err: Error) =>
          err instanceof ObjectStoreError && err.key === key && /"\." and "\.\."/.test(err.message),
      );
    }
    assert.deepEqual((await local.list(p)).objects, []);
    // The buckets, and the lock that says which process holds the directory.
    assert.deepEqual(await readdir(join(dataDir as string)), [
      "contract",
      "fixes",
      "local",
      LOCK_FILE,
      "reads",
    ]);
  });
});

describe("s3rver as the star's store", () => {
  test("objects survive a restart on the same data directory", async (t) => {
    const dir = await tempDir(t);
    const first = await startS3rver({ dataDir: dir, buckets: ["durable"] });
    let second: RunningS3rver | undefined;
    t.after(async () => {
      await first.close().catch(() => {});
      await second?.close();
    });
    const put = createS3Store({ endpoint: first.url, bucket: "durable" });
    await put.put("seg/0001", Buffer.from("kept"));
    put.close();
    await first.close();
    second = await startS3rver({ dataDir: dir, buckets: ["durable"] });
    const get = createS3Store({ endpoint: second.url, bucket: "durable" });
    t.after(() => get.close());
    assert.deepEqual(await get.get("seg/0001"), Buffer.from("kept"));
  });

  test("a PUT racing the delete of the last object under its prefix lands, and the server lives", async (t) => {
    // Its own process: the failure this guards against took the whole process down.
    const dir = await tempDir(t);
    const [node, cliArgs] = nodeArgs("src/platform/objstore/main.ts", []);
    const server = await startProcess({
      command: node,
      args: [...cliArgs, "--port", "0", "--data-dir", dir, "--bucket", "race"],
      readyLine: /^(http:\/\/127\.0\.0\.1:\d+)$/,
    });
    const store = createS3Store({
      endpoint: server.match[1] as string,
      bucket: "race",
      maxAttempts: 1,
    });
    t.after(async () => {
      store.close();
      await server.kill();
    });
    for (let i = 0; i < 200; i++) {
      await store.put(`log/${i}`, Buffer.from("old"));
      await Promise.all([
        store.delete([`log/${i}`]),
        store.put(`log/${i + 1}`, Buffer.from("new")),
      ]);
      assert.deepEqual(await store.get(`log/${i + 1}`), Buffer.from("new"));
      await store.delete([`log/${i + 1}`]);
    }
    assert.deepEqual(await store.list("log/"), { objects: [] });
  });

  test("a PUT's object appears only once its whole body arrived; a cut one leaves nothing", async (t) => {
    const dir = await tempDir(t);
    const server = await startS3rver({ dataDir: dir, buckets: ["atomic"] });
    const store = createS3Store({ endpoint: server.url, bucket: "atomic" });
    const sockets: Socket[] = [];
    t.after(async () => {
      for (const socket of sockets) socket.destroy();
      store.close();
      await server.close();
    });
    const put = (key: string, length: number, first: string) => {
      const socket = connect(server.port, "127.0.0.1");
      sockets.push(socket);
      const headers = Object.entries(signed("PUT", `${server.url}/atomic/${key}`))
        .map(([name, value]) => `${name}: ${value}\r\n`)
        .join("");
      socket.write(`PUT /atomic/${key} HTTP/1.1\r\n${headers}content-length: ${length}\r\n\r\n`);
      socket.write(first);
      return socket;
    };
    // The files s3rver writes a key's body into, whatever their name.
    const parts = async (key: string) =>
      (await readdir(dir, { recursive: true })).filter((f) => f.includes(`${key}._S3rver_object`));
    const cut = put("cut", 1000, "x".repeat(10));
    const whole = put("whole", 20, "y".repeat(10));
    await waitFor(async () => (await parts("cut")).length + (await parts("whole")).length === 2, {
      message: "both bodies being written",
    });
    assert.deepEqual(await store.list(""), { objects: [] }, "nothing listed before its body is in");
    assert.equal(await store.get("whole"), undefined);

    cut.destroy();
    await waitFor(async () => (await parts("cut")).length === 0, {
      message: "the cut body dropped",
    });
    const answered = new Promise<string>((resolve) => {
      let text = "";
      whole.on("data", (chunk) => {
        text += chunk;
        if (text.includes("\r\n\r\n")) resolve(text);
      });
    });
    whole.write("y".repeat(10));
    assert.match(await answered, /^HTTP\/1\.1 200 /);
    assert.deepEqual(await store.get("whole"), Buffer.from("y".repeat(20)));
    assert.deepEqual(
      (await store.list("")).objects.map((o) => o.key),
      ["whole"],
    );
  });

  test("an in-place PUT or delete waits for a conditional PUT over HTTP in its key's turn", async (t) => {
    const dir = await tempDir(t);
    const server = await startS3rver({ dataDir: dir, buckets: ["turns"] });
    const local = server.localStore("turns");
    const sockets: Socket[] = [];
    t.after(async () => {
      for (const socket of sockets) socket.destroy();
      local.close();
      await server.close();
    });
    for (const then of ["put", "delete"] as const) {
      const key = `k-${then}`;
      await local.put(key, Buffer.from("v1"));
      const read = await local.getVersioned(key);
      assert.ok(read);
      // A conditional PUT whose check passed, its body half sent: it holds the key's turn.
      const socket = connect(server.port, "127.0.0.1");
      sockets.push(socket);
      const headers = Object.entries({
        ...signed("PUT", `${server.url}/turns/${key}`),
        "if-match": read.etag,
      })
        .map(([name, value]) => `${name}: ${value}\r\n`)
        .join("");
      socket.write(`PUT /turns/${key} HTTP/1.1\r\n${headers}content-length: 4\r\n\r\nv2`);
      const answered = new Promise<string>((resolve) => {
        let text = "";
        socket.on("data", (chunk) => {
          text += chunk;
          if (text.includes("\r\n\r\n")) resolve(text);
        });
      });
      await waitFor(
        async () =>
          (await readdir(dir, { recursive: true })).some((f) =>
            f.includes(`${key}._S3rver_object.part`),
          ),
        { message: "the conditional PUT's body being written" },
      );
      // Sent now, it lands after the conditional PUT, not between its check and its write.
      const after = then === "put" ? local.put(key, Buffer.from("v3")) : local.delete([key]);
      socket.write("v2");
      assert.match(await answered, /^HTTP\/1\.1 200 /);
      await after;
      assert.equal((await local.get(key))?.toString(), then === "put" ? "v3" : undefined);
    }
    // A plain PUT over HTTP takes no turn: its stalled upload holds back no write of the key.
    const stalled = connect(server.port, "127.0.0.1");
    sockets.push(stalled);
    const plain = Object.entries(signed("PUT", `${server.url}/turns/k-stalled`))
      .map(([name, value]) => `${name}: ${value}\r\n`)
      .join("");
    stalled.write(`PUT /turns/k-stalled HTTP/1.1\r\n${plain}content-length: 100\r\n\r\nxx`);
    await waitFor(
      async () =>
        (await readdir(dir, { recursive: true })).some((f) =>
          f.includes("k-stalled._S3rver_object.part"),
        ),
      { message: "the stalled upload being written" },
    );
    let written = false;
    const putting = local.put("k-stalled", Buffer.from("in place"));
    putting.then(
      () => {
        written = true;
      },
      () => {},
    );
    await waitFor(() => written, { message: "the in-place PUT beside a stalled upload" });
    await putting;
  });

  test("multi-object delete takes keys verbatim: numbers, spaces at the ends", async (t) => {
    const store = createS3Store({ endpoint: s3url(), bucket: "fixes" });
    t.after(() => store.close());
    const keys = ["0001", "1e3", " padded ", "trailing ", "ü"];
    for (const key of keys) await store.put(key, Buffer.from(key));
    await store.delete(keys);
    assert.deepEqual(await store.list(""), { objects: [] });
  });

  test("ensureS3Bucket creates a bucket once, also when called concurrently", async (t) => {
    const opts = { endpoint: s3url(), bucket: "ensured" };
    await Promise.all([ensureS3Bucket(opts), ensureS3Bucket(opts), ensureS3Bucket(opts)]);
    await ensureS3Bucket(opts);
    const store = createS3Store(opts);
    t.after(() => store.close());
    await store.put("k", Buffer.from("v"));
    assert.deepEqual(await store.get("k"), Buffer.from("v"));
  });

  test("a bad bucket name fails at start", async (t) => {
    await assert.rejects(
      startS3rver({ dataDir: await tempDir(t), buckets: ["Bad_Name"] }),
      /invalid bucket name "Bad_Name"/,
    );
  });
});

describe("s3rver reads into pooled memory", () => {
  const MiB = 1024 * 1024;
  const pattern = (size: number, seed: number): Buffer => {
    const bytes = Buffer.allocUnsafe(size);
    for (let i = 0; i < size; i++) bytes[i] = (i * 31 + seed * 101 + (i >> 12)) & 0xff;
    return bytes;
  };
  const objectUrl = (key: string): string => `${s3url()}/reads/${key}`;
  /** A signed GET (or HEAD) of a key, with more headers. */
  const at = (
    key: string,
    opts: { method?: "GET" | "HEAD"; headers?: Record<string, string> } = {},
  ) => {
    const method = opts.method ?? "GET";
    const url = objectUrl(key);
    return request(url, { method, headers: { ...signed(method, url), ...opts.headers } });
  };

  test("a response still being sent keeps its bytes while later GETs reuse the memory", async (t) => {
    const store = createS3Store({ endpoint: s3url(), bucket: "reads" });
    t.after(() => store.close());
    // 8 MiB, the largest pooled read: more than the sockets take at once, so the held
    // response still has writes queued on its memory while the others run.
    const held = pattern(8 * MiB, 1);
    const other = pattern(8 * MiB, 2);
    await store.put("held/a", held);
    await store.put("held/b", other);
    const slow = await at("held/a");
    assert.equal(slow.statusCode, 200);
    for (let i = 0; i < 4; i++) {
      const res = await at("held/b");
      assert.ok(Buffer.from(await res.body.arrayBuffer()).equals(other), `GET ${i} of b`);
    }
    assert.ok(Buffer.from(await slow.body.arrayBuffer()).equals(held), "the held response");
  });

  test("concurrent whole and ranged GETs of any size equal the stored bytes", async (t) => {
    const store = createS3Store({ endpoint: s3url(), bucket: "reads" });
    t.after(() => store.close());
    // Around the pool's classes and the 8 MiB bound, past which s3rver streams as before.
    const sizes = [1, 1000, 64 * 1024 - 1, 64 * 1024, 70_000, MiB + 1, 8 * MiB, 8 * MiB + 1];
    const objects = sizes.map((size, i) => pattern(size, i + 3));
    await Promise.all(objects.map((bytes, i) => store.put(`sizes/${i}`, bytes)));
    const read = fc.record({
      object: fc.nat(objects.length - 1),
      from: fc.double({ min: 0, max: 1, noNaN: true }),
      span: fc.double({ min: 0, max: 1, noNaN: true }),
      whole: fc.boolean(),
    });
    await fc.assert(
      fc.asyncProperty(fc.array(read, { minLength: 1, maxLength: 6 }), async (reads) => {
        await Promise.all(
          reads.map(async ({ object, from, span, whole }) => {
            const bytes = objects[object] as Buffer;
            const key = `sizes/${object}`;
            if (whole) {
              assert.ok((await store.get(key))?.equals(bytes), `${key} whole`);
              return;
            }
            const start = Math.floor(from * (bytes.length - 1));
            const end = start + 1 + Math.floor(span * (bytes.length - start - 1));
            const got = await store.get(key, { start, end });
            assert.ok(got?.equals(bytes.subarray(start, end)), `${key} [${start}, ${end})`);
          }),
        );
      }),
      { numRuns: 25 },
    );
  });

  test("HEAD, a conditional GET, a missing key and an unsatisfiable range answer as before", async (t) => {
    const store = createS3Store({ endpoint: s3url(), bucket: "reads" });
    t.after(() => store.close());
    const bytes = pattern(100_000, 9);
    await store.put("answers/x", bytes);
    const head = await at("answers/x", { method: "HEAD" });
    assert.equal(head.statusCode, 200);
    assert.equal(head.headers["content-length"], String(bytes.length));
    assert.equal((await head.body.arrayBuffer()).byteLength, 0);
    const etag = head.headers.etag;
    assert.equal(typeof etag, "string");
    const unchanged = await at("answers/x", {
      headers: { "if-none-match": etag as string },
    });
    assert.equal(unchanged.statusCode, 304);
    await unchanged.body.dump();
    const missing = await at("answers/missing");
    assert.equal(missing.statusCode, 404);
    assert.match(await missing.body.text(), /NoSuchKey/);
    const beyond = await at("answers/x", {
      headers: { range: `bytes=${bytes.length}-${bytes.length + 10}` },
    });
    assert.equal(beyond.statusCode, 416);
    await beyond.body.dump();
    const tail = await at("answers/x", { headers: { range: "bytes=99990-" } });
    assert.equal(tail.statusCode, 206);
    assert.equal(tail.headers["content-range"], `bytes 99990-99999/${bytes.length}`);
    assert.ok(Buffer.from(await tail.body.arrayBuffer()).equals(bytes.subarray(99_990)));
  });

  test("a client that leaves mid-body does not disturb the next readers", async (t) => {
    const store = createS3Store({ endpoint: s3url(), bucket: "reads" });
    t.after(() => store.close());
    const bytes = pattern(8 * MiB, 11);
    await store.put("left/x", bytes);
    for (let i = 0; i < 3; i++) {
      const res = await at("left/x");
      for await (const _ of res.body) break;
    }
    assert.ok((await store.get("left/x"))?.equals(bytes));
  });
});

describe("S3 store errors", () => {
  const isKind = (kind: ObjectStoreErrorKind, key?: string) => (err: unknown) => {
    assert.ok(err instanceof ObjectStoreError, String(err));
    assert.equal(err.kind, kind, err.message);
    if (key !== undefined) assert.equal(err.key, key);
    return true;
  };

  /** A server answering every request with the given status and S3 error code. */
  async function fakeS3(t: { after(fn: () => void): void }, status: number, xml: string) {
    const server = createHttpServer((_req, res) => {
      res.writeHead(status, { "content-type": "application/xml" }).end(xml);
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    t.after(() => server.close());
    const address = server.address();
    assert.ok(address && typeof address === "object");
    return `http://127.0.0.1:${address.port}`;
  }

  test("a missing bucket is an error, not a missing object", async (t) => {
    const store = createS3Store({ endpoint: s3url(), bucket: "no-such-bucket" });
    t.after(() => store.close());
    await assert.rejects(store.get("k"), isKind("other", "k"));
    await assert.rejects(store.put("k", Buffer.from("v")), /NoSuchBucket/);
  });

  test("nothing listening: unavailable", async (t) => {
    const endpoint = `http://127.0.0.1:${await freePort()}`;
    const store = createS3Store({ endpoint, bucket: "b", maxAttempts: 1 });
    t.after(() => store.close());
    await assert.rejects(store.get("some/key"), isKind("unavailable", "some/key"));
    await assert.rejects(
      ensureS3Bucket({ endpoint, bucket: "b", maxAttempts: 1 }),
      isKind("unavailable"),
    );
  });

  test("a server that never answers: timeout", async (t) => {
    const sockets = new Set<Socket>();
    const server: Server = createNetServer((socket) => {
      sockets.add(socket);
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    t.after(() => {
      for (const socket of sockets) socket.destroy();
      server.close();
    });
    const address = server.address();
    assert.ok(address && typeof address === "object");
    const store = createS3Store({
      endpoint: `http://127.0.0.1:${address.port}`,
      bucket: "b",
      requestTimeoutMs: 200,
      maxAttempts: 1,
    });
    t.after(() => store.close());
    await assert.rejects(store.list("p/"), isKind("timeout", "p/"));
  });

  test("access denied: denied, and credentials stay out of the message", async (t) => {
    const secret = "wJalrXUtnFEMI-K7MDENG-bPxRfiCYEXAMPLEKEY";
    const endpoint = await fakeS3(
      t,
      403,
      `<Error><Code>AccessDenied</Code><Message>no access for AKIDEXAMPLE with ${secret}</Message></Error>`,
    );
    const store = createS3Store({
      endpoint,
      bucket: "b",
      accessKeyId: "AKIDEXAMPLE",
      secretAccessKey: secret,
    });
    t.after(() => store.close());
    const err = await store.put("k", Buffer.from("v")).then(
      () => assert.fail("put succeeded"),
      (e: unknown) => e,
    );
    assert.ok(isKind("denied", "k")(err));
    const text = `${(err as Error).message} ${JSON.stringify(err)} ${(err as Error).stack}`;
    assert.ok(!text.includes(secret) && !text.includes("AKIDEXAMPLE"), text);
    assert.match((err as Error).message, /AccessDenied \(HTTP 403\)/);
  });

  /** An S3 store in front of `answer`, a server that sees each request whole (its body read). */
  async function storeServing(
    t: { after(fn: () => void): void },
    answer: (req: IncomingMessage, body: Buffer, res: ServerResponse) => void,
  ) {
    const server = createHttpServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => answer(req, Buffer.concat(chunks), res));
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    t.after(() => {
      server.close();
      server.closeAllConnections();
    });
    const address = server.address();
    assert.ok(address && typeof address === "object");
    const store = createS3Store({ endpoint: `http://127.0.0.1:${address.port}`, bucket: "b" });
    t.after(() => store.close());
    return store;
  }

  test("a conditional PUT whose answer was lost knows its own write from another's", async (t) => {
    const objects = new Map<string, Buffer>();
    // The first PUT of each key loses its answer (the connection drops): for "mine" once it
    // was carried out, for "another" after another writer's object landed first.
    const dropped = new Set<string>();
    const store = await storeServing(t, (req, body, res) => {
      const path = req.url ?? "";
      if (req.method === "GET") {
        const there = objects.get(path);
        if (there) res.writeHead(200, { etag: '"e"' }).end(there);
        else res.writeHead(404).end("<Error><Code>NoSuchKey</Code></Error>");
        return;
      }
      if (!dropped.has(path)) {
        dropped.add(path);
        objects.set(path, path === "/b/another" ? Buffer.from("theirs") : body);
        res.socket?.destroy();
        return;
      }
      res.writeHead(412).end("<Error><Code>PreconditionFailed</Code></Error>");
    });
    assert.equal(await store.putIf("mine", Buffer.from("ours"), { ifNoneMatch: "*" }), '"e"');
    assert.equal(
      await store.putIf("another", Buffer.from("ours"), { ifNoneMatch: "*" }),
      undefined,
    );
    assert.deepEqual(objects.get("/b/another"), Buffer.from("theirs"));
  });

  test("a 409 after a lost attempt, our bytes not yet there, is an unknown outcome, not a refusal", async (t) => {
    // The first PUT's answer is lost; the retry meets 409 (a conditional write in progress on
    // the key: the first one, still landing), and a read finds nothing yet.
    let puts = 0;
    const store = await storeServing(t, (req, _body, res) => {
      if (req.method === "GET") {
        res.writeHead(404).end("<Error><Code>NoSuchKey</Code></Error>");
        return;
      }
      if (++puts === 1) {
        res.socket?.destroy();
        return;
      }
      res.writeHead(409).end("<Error><Code>ConditionalRequestConflict</Code></Error>");
    });
    await assert.rejects(
      store.putIf("k", Buffer.from("ours"), { ifNoneMatch: "*" }),
      isKind("unavailable", "k"),
    );
  });

  test("If-Match on a key S3 does not have (404 NoSuchKey) is a condition that did not hold", async (t) => {
    const noKey = await fakeS3(
      t,
      404,
      "<Error><Code>NoSuchKey</Code><Message>no</Message></Error>",
    );
    const store = createS3Store({ endpoint: noKey, bucket: "b" });
    t.after(() => store.close());
    assert.equal(await store.putIf("k", Buffer.from("v"), { ifMatch: '"e"' }), undefined);
    const noBucket = await fakeS3(t, 404, "<Error><Code>NoSuchBucket</Code></Error>");
    const elsewhere = createS3Store({ endpoint: noBucket, bucket: "b" });
    t.after(() => elsewhere.close());
    await assert.rejects(
      elsewhere.putIf("k", Buffer.from("v"), { ifMatch: '"e"' }),
      /NoSuchBucket/,
    );
  });

  /** An x-amz-date (20240101T000000Z) in milliseconds. */
  const amzTime = (date: string): number =>
    Date.parse(date.replace(/^(\d{4})(\d\d)(\d\d)T(\d\d)(\d\d)(\d\d)Z$/, "$1-$2-$3T$4:$5:$6Z"));

  test("once the store's Date showed our clock skewed, presigned URLs carry the store's time", async (t) => {
    const storeNow = () => Date.now() + 3_600_000;
    const server = createHttpServer((req, res) => {
      const skewed =
        Math.abs(amzTime(String(req.headers["x-amz-date"])) - storeNow()) > 15 * 60_000;
      res
        .writeHead(skewed ? 403 : 200, { date: new Date(storeNow()).toUTCString() })
        .end(skewed ? "<Error><Code>RequestTimeTooSkewed</Code></Error>" : "v");
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    t.after(() => server.close());
    const address = server.address();
    assert.ok(address && typeof address === "object");
    const store = createS3Store({ endpoint: `http://127.0.0.1:${address.port}`, bucket: "b" });
    t.after(() => store.close());
    assert.deepEqual(await store.get("k"), Buffer.from("v"));
    const dated = new URL(await store.presignGet("k", 60)).searchParams.get("X-Amz-Date") ?? "";
    assert.ok(Math.abs(amzTime(dated) - storeNow()) < 60_000, dated);
  });

  test("a multi-delete refusing one key: that key's error, credentials kept out", async (t) => {
    const secret = "wJalrXUtnFEMI-K7MDENG-bPxRfiCYEXAMPLEKEY";
    const endpoint = await fakeS3(
      t,
      200,
      `<DeleteResult><Deleted><Key>a</Key></Deleted><Error><Key>b</Key><Code>AccessDenied</Code><Message>denied with ${secret}</Message></Error></DeleteResult>`,
    );
    const store = createS3Store({ endpoint, bucket: "b", secretAccessKey: secret });
    t.after(() => store.close());
    const err = await store.delete(["a", "b"]).then(
      () => assert.fail("delete succeeded"),
      (e: unknown) => e,
    );
    assert.ok(isKind("denied", "b")(err));
    assert.ok(!(err as Error).message.includes(secret), (err as Error).message);
    assert.match(
      (err as Error).message,
      /S3 delete s3:\/\/b\/b failed: AccessDenied: denied with \*\*\*/,
    );
  });

  test("the service failing: unavailable", async (t) => {
    const endpoint = await fakeS3(
      t,
      503,
      "<Error><Code>SlowDown</Code><Message>Please reduce your request rate.</Message></Error>",
    );
    const store = createS3Store({ endpoint, bucket: "b", maxAttempts: 1 });
    t.after(() => store.close());
    await assert.rejects(store.delete(["a", "b"]), isKind("unavailable", "a"));
  });
});

describe("npm run objstore", () => {
  const [node, cliArgs] = nodeArgs("src/platform/objstore/main.ts", []);

  test("serves on a free port, then stops on SIGTERM with exit code 0", async (t) => {
    const dir = await tempDir(t);
    const p = await startProcess({
      command: node,
      args: [...cliArgs, "--port", "0", "--data-dir", dir, "--bucket", "cli"],
      readyLine: /^http:\/\/127\.0\.0\.1:(\d+)$/,
    });
    t.after(() => p.kill("SIGKILL"));
    assert.notEqual(p.match[1], "0");
    const store = createS3Store({ endpoint: p.match[0], bucket: "cli" });
    t.after(() => store.close());
    await store.put("hello", Buffer.from("world"));
    assert.deepEqual(await store.get("hello"), Buffer.from("world"));
    assert.deepEqual(await p.kill("SIGTERM"), { code: 0, signal: null });
    assert.deepEqual(p.stdoutLines(), [p.match[0]]);
  });

  test("takes its flags from the environment too", async (t) => {
    const dir = await tempDir(t);
    const p = await startProcess({
      command: node,
      args: cliArgs,
      env: {
        NOVA_OBJSTORE_PORT: "0",
        NOVA_OBJSTORE_DATA_DIR: dir,
        NOVA_OBJSTORE_BUCKET: "env-a,env-b",
      },
      readyLine: /^http:\/\/127\.0\.0\.1:\d+$/,
    });
    t.after(() => p.kill("SIGKILL"));
    const store = createS3Store({ endpoint: p.match[0], bucket: "env-b" });
    t.after(() => store.close());
    await store.put("k", Buffer.from("v"));
    assert.deepEqual(await p.kill("SIGINT"), { code: 0, signal: null });
  });

  test("--help lists every flag and exits 0", async (t) => {
    const p = await startProcess({
      command: node,
      args: [...cliArgs, "--help"],
      readyLine: /^Usage:/,
    });
    t.after(() => p.kill("SIGKILL"));
    assert.deepEqual(await p.waitForExit(), { code: 0, signal: null });
    const help = p.stdoutLines().join("\n");
    for (const flag of ["--host", "--port", "--data-dir", "--bucket", "--help"]) {
      assert.ok(help.includes(flag), `${flag} missing from:\n${help}`);
    }
    assert.match(help, /default: 4568; env: NOVA_OBJSTORE_PORT/);
  });

  test("a bad flag exits non-zero naming the flag", async () => {
    await assert.rejects(
      startProcess({ command: node, args: [...cliArgs, "--prot", "1"], readyLine: /^http/ }),
      (err: Error) => /code 2/.test(err.message) && /unknown flag --prot/.test(err.message),
    );
    await assert.rejects(
      startProcess({
        command: node,
        args: [...cliArgs, "--port", "http", "--data-dir", "/tmp/x"],
        readyLine: /^http/,
      }),
      /--port: expected an integer from 0 to 65535, got "http"/,
    );
  });
});
