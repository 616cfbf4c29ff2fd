import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { describe, test } from "node:test";
import { ObjectStoreError } from "./errors.ts";
import { createMemoryStore } from "./memory-store.ts";
import { md5Etag, type ObjectInfo, type ObjectStore } from "./object-store.ts";

/** How the contract reaches one implementation of ObjectStore. */
export interface ContractTarget {
  /** A store the test closes when done; tests share its bucket but keep to their own prefix. */
  open(): ObjectStore | Promise<ObjectStore>;
  /** Fetches a presigned URL the way a client handed that URL would. */
  fetchUrl(url: string, store: ObjectStore): Promise<Buffer | undefined>;
  /**
   * Writes objects whose bytes are their keys, for the tests that need more than a page of
   * them, the fastest way the target has (unset: put, through the store under test). Puts have
   * tests of their own; a thousand of them over HTTP is seconds of CPU that test only listing.
   */
  seed?(keys: string[]): Promise<void>;
}

// Keys whose S3 order (UTF-8 bytes) differs from path order, from a naive string sort, or both:
// "-" and "." sort before "/", and U+FF21 sorts before an astral character in UTF-8 only.
const ORDERED_KEYS = ["a", "a!", "a-c", "a.0", "a/b", "a/b/c", "aa", "b", "\u{FF21}", "\u{1F600}"];
const ODD_KEYS = [
  "a/b",
  "a b",
  "trailing ",
  "100%",
  "%2F",
  "x?y#z",
  "a+b=c",
  "&<>'\"",
  "ü/ñ",
  "emoji 🎉",
  // NEL: an HTML decoder reads its reference (&#x85;) as "…"
  "next\u0085line",
];

const bytes = (s: string): Buffer => Buffer.from(s, "utf8");
const keysOf = (objects: ObjectInfo[], prefix: string): string[] =>
  objects.map((o) => o.key.slice(prefix.length));

async function collect<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
}

async function putAll(store: ObjectStore, keys: string[], concurrency = 16): Promise<void> {
  const queue = [...keys];
  const worker = async (): Promise<void> => {
    for (let key = queue.shift(); key !== undefined; key = queue.shift()) {
      await store.put(key, bytes(key));
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
}

/** The memory store, its presigned URLs read back from the store they name. */
export const memoryTarget: ContractTarget = {
  open: () => createMemoryStore(),
  fetchUrl: async (url, store) => {
    const { host, pathname } = new URL(url);
    return host === store.bucket ? store.get(decodeURIComponent(pathname.slice(1))) : undefined;
  },
};

/** Registers the ObjectStore contract tests for one implementation. */
export function describeObjectStoreContract(name: string, target: ContractTarget): void {
  describe(`ObjectStore contract: ${name}`, () => {
    const run = `${Date.now().toString(36)}-${randomBytes(3).toString("hex")}`;
    let tests = 0;
    const setup = async (t: { after(fn: () => void): void }) => {
      const store = await target.open();
      t.after(() => store.close());
      return { store, p: `contract/${run}/${tests++}/` };
    };

    test("put then get returns the bytes; put again replaces them", async (t) => {
      const { store, p } = await setup(t);
      await store.put(`${p}k`, bytes("first"));
      assert.deepEqual(await store.get(`${p}k`), bytes("first"));
      await store.put(`${p}k`, bytes("second, longer"));
      assert.deepEqual(await store.get(`${p}k`), bytes("second, longer"));
    });

    test("If-None-Match: * writes only where no object is", async (t) => {
      const { store, p } = await setup(t);
      const etag = await store.putIf(`${p}k`, bytes("first"), { ifNoneMatch: "*" });
      assert.equal(typeof etag, "string");
      assert.equal(await store.putIf(`${p}k`, bytes("second"), { ifNoneMatch: "*" }), undefined);
      assert.deepEqual(await store.getVersioned(`${p}k`), { body: bytes("first"), etag });
      assert.equal(await store.getVersioned(`${p}missing`), undefined);
    });

    test("If-Match writes only over the object with that ETag", async (t) => {
      const { store, p } = await setup(t);
      assert.equal(await store.putIf(`${p}k`, bytes("a"), { ifMatch: '"0"' }), undefined);
      assert.equal(await store.get(`${p}k`), undefined);
      await store.put(`${p}k`, bytes("one"));
      const read = await store.getVersioned(`${p}k`);
      assert.ok(read);
      const next = await store.putIf(`${p}k`, bytes("two"), { ifMatch: read.etag });
      assert.ok(next !== undefined && next !== read.etag);
      // The ETag read before the write is stale now.
      assert.equal(await store.putIf(`${p}k`, bytes("three"), { ifMatch: read.etag }), undefined);
      assert.deepEqual(await store.getVersioned(`${p}k`), { body: bytes("two"), etag: next });
    });

    test("of conditional writes racing on one key, exactly one wins", async (t) => {
      const { store, p } = await setup(t);
      const created = await Promise.all(
        Array.from({ length: 8 }, (_, i) =>
          store.putIf(`${p}k`, bytes(`c${i}`), { ifNoneMatch: "*" }),
        ),
      );
      assert.equal(created.filter((e) => e !== undefined).length, 1);
      const read = await store.getVersioned(`${p}k`);
      assert.ok(read);
      const replaced = await Promise.all(
        Array.from({ length: 8 }, (_, i) =>
          store.putIf(`${p}k`, bytes(`r${i}`), { ifMatch: read.etag }),
        ),
      );
      const winners = replaced.flatMap((e, i) => (e === undefined ? [] : [i]));
      assert.equal(winners.length, 1);
      assert.deepEqual((await store.get(`${p}k`))?.toString(), `r${winners[0]}`);
    });

    test("a read racing replacements gets one version whole, with that version's ETag", async (t) => {
      const { store, p } = await setup(t);
      const versions = [bytes("short"), bytes("a longer version of the object".repeat(50))];
      await store.put(`${p}k`, versions[0] as Buffer);
      let writing = true;
      const writer = (async () => {
        for (let i = 1; writing; i++) await store.put(`${p}k`, versions[i % 2] as Buffer);
      })();
      const reader = async () => {
        for (let i = 0; i < 50; i++) {
          const read = await store.getVersioned(`${p}k`);
          assert.ok(read && versions.some((v) => v.equals(read.body)), "one version, whole");
          assert.equal(read.etag, md5Etag(read.body));
        }
      };
      try {
        await Promise.all([reader(), reader(), reader(), reader()]);
      } finally {
        writing = false;
        await writer;
      }
    });

    test("a missing object reads as undefined, with or without a range", async (t) => {
      const { store, p } = await setup(t);
      assert.equal(await store.get(`${p}missing`), undefined);
      assert.equal(await store.get(`${p}missing`, { start: 0, end: 4 }), undefined);
    });

    test("range reads are end-exclusive and cut at the object's end", async (t) => {
      const { store, p } = await setup(t);
      await store.put(`${p}r`, bytes("0123456789"));
      const read = async (start: number, end: number) =>
        (await store.get(`${p}r`, { start, end }))?.toString("utf8");
      assert.equal(await read(0, 3), "012");
      assert.equal(await read(2, 5), "234");
      assert.equal(await read(9, 10), "9");
      assert.equal(await read(4, 4), "");
      assert.equal(await read(7, 100), "789");
      assert.equal(await read(10, 12), "");
      assert.equal(await read(50, 60), "");
    });

    test("an empty object round-trips, also through a range", async (t) => {
      const { store, p } = await setup(t);
      await store.put(`${p}empty`, new Uint8Array());
      assert.deepEqual(await store.get(`${p}empty`), Buffer.alloc(0));
      assert.deepEqual(await store.get(`${p}empty`, { start: 0, end: 1 }), Buffer.alloc(0));
      const { objects } = await store.list(p);
      assert.deepEqual(objects, [{ key: `${p}empty`, size: 0 }]);
    });

    test("binary bytes round-trip, including a 5 MiB object", async (t) => {
      const { store, p } = await setup(t);
      const every = Buffer.from(Array.from({ length: 256 }, (_, i) => i));
      await store.put(`${p}bytes`, every);
      assert.deepEqual(await store.get(`${p}bytes`), every);
      const big = randomBytes(5 * 1024 * 1024);
      await store.put(`${p}big`, big);
      const back = await store.get(`${p}big`);
      assert.ok(back?.equals(big), "5 MiB object differs after the round trip");
      const mid = await store.get(`${p}big`, { start: 1_000_000, end: 3_000_001 });
      assert.ok(mid?.equals(big.subarray(1_000_000, 3_000_001)), "range of the 5 MiB object");
    });

    test("the stored object does not alias the caller's buffer", async (t) => {
      const { store, p } = await setup(t);
      const body = bytes("abc");
      await store.put(`${p}k`, body);
      body[0] = 0x7a;
      const first = await store.get(`${p}k`);
      assert.deepEqual(first, bytes("abc"));
      if (first) first[1] = 0x7a;
      assert.deepEqual(await store.get(`${p}k`), bytes("abc"));
    });

    test("keys with slashes, percent signs, spaces, XML and unicode characters", async (t) => {
      const { store, p } = await setup(t);
      for (const key of ODD_KEYS) await store.put(p + key, bytes(`value of ${key}`));
      for (const key of ODD_KEYS) {
        assert.equal((await store.get(p + key))?.toString("utf8"), `value of ${key}`, key);
      }
      const listed = keysOf(await collect(store.listAll(p)), p);
      assert.deepEqual([...listed].sort(), [...ODD_KEYS].sort());
      await store.delete(ODD_KEYS.map((k) => p + k));
      assert.deepEqual(await collect(store.listAll(p)), []);
    });

    test("list orders keys by their UTF-8 bytes and reports sizes", async (t) => {
      const { store, p } = await setup(t);
      await putAll(
        store,
        [...ORDERED_KEYS].reverse().map((k) => p + k),
      );
      const { objects, next } = await store.list(p);
      assert.deepEqual(keysOf(objects, p), ORDERED_KEYS);
      assert.equal(next, undefined);
      for (const o of objects) assert.equal(o.size, Buffer.byteLength(o.key));
    });

    test("list filters by prefix and starts after a key", async (t) => {
      const { store, p } = await setup(t);
      await putAll(
        store,
        ORDERED_KEYS.map((k) => p + k),
      );
      const list = async (prefix: string, startAfter?: string) =>
        keysOf(
          (
            await store.list(
              p + prefix,
              startAfter === undefined ? {} : { startAfter: p + startAfter },
            )
          ).objects,
          p,
        );
      assert.deepEqual(await list("a/"), ["a/b", "a/b/c"]);
      assert.deepEqual(await list("a"), ORDERED_KEYS.slice(0, 7));
      assert.deepEqual(await list("nothing"), []);
      assert.deepEqual(await list("", "a/b"), ORDERED_KEYS.slice(5));
      assert.deepEqual(await list("", "a-b"), ORDERED_KEYS.slice(2));
      assert.deepEqual(await list("", "\u{FF21}"), ["\u{1F600}"]);
      assert.deepEqual(await list("a/", "a/b/c"), []);
      // A startAfter below the prefix starts the listing at the prefix's beginning.
      assert.deepEqual(await list("a/", "0"), ["a/b", "a/b/c"]);
      assert.deepEqual(await list("", "a"), ORDERED_KEYS.slice(1));
    });

    test("pages of any size visit every key once, in order", async (t) => {
      const { store, p } = await setup(t);
      await putAll(
        store,
        ORDERED_KEYS.map((k) => p + k),
      );
      for (const limit of [1, 3, ORDERED_KEYS.length, 50]) {
        const seen: string[] = [];
        let startAfter: string | undefined;
        for (let pages = 0; ; pages++) {
          assert.ok(pages <= ORDERED_KEYS.length, "paging does not end");
          const page = await store.list(
            p,
            startAfter === undefined ? { limit } : { limit, startAfter },
          );
          assert.ok(page.objects.length <= limit);
          seen.push(...keysOf(page.objects, p));
          if (page.next === undefined) break;
          startAfter = page.next;
        }
        assert.deepEqual(seen, ORDERED_KEYS, `limit ${limit}`);
      }
      assert.deepEqual(keysOf(await collect(store.listAll(p)), p), ORDERED_KEYS);
      const after = store.listAll(p, { startAfter: `${p}aa` });
      assert.deepEqual(keysOf(await collect(after), p), ORDERED_KEYS.slice(7));
    });

    test("more than a page of objects: list caps at 1000, listAll and delete see all", async (t) => {
      const { store, p } = await setup(t);
      const keys = Array.from({ length: 1005 }, (_, i) => `${p}d/${String(i).padStart(5, "0")}`);
      await (target.seed ? target.seed(keys) : putAll(store, keys));
      const first = await store.list(p, { limit: 5000 });
      assert.equal(first.objects.length, 1000);
      assert.equal(first.next, keys[999]);
      const all = await collect(store.listAll(p));
      assert.deepEqual(
        all.map((o) => o.key),
        keys,
      );
      await store.delete(keys);
      assert.deepEqual(await store.list(p), { objects: [] });
    });

    test("delete removes the given keys and ignores missing ones", async (t) => {
      const { store, p } = await setup(t);
      await putAll(
        store,
        ["k1", "k2", "k3"].map((k) => p + k),
      );
      await store.delete([`${p}k1`, `${p}k3`, `${p}never`]);
      await store.delete([]);
      assert.equal(await store.get(`${p}k1`), undefined);
      assert.deepEqual(keysOf((await store.list(p)).objects, p), ["k2"]);
    });

    test("delete takes keys no XML document can hold, beside others", async (t) => {
      const { store, p } = await setup(t);
      const keys = ["ctl\u0001", "us\u001f", "tab\t", "ok"].map((k) => p + k);
      await putAll(store, keys);
      await store.delete([...keys, `${p}gone\u0002`]);
      for (const key of keys) assert.equal(await store.get(key), undefined, JSON.stringify(key));
    });

    test("a presigned URL serves the object's bytes", async (t) => {
      const { store, p } = await setup(t);
      const body = randomBytes(4096);
      for (const key of ["plain", "ü/ñ %2F & +?#"]) {
        await store.put(p + key, body);
        const url = await store.presignGet(p + key, 60);
        assert.deepEqual(await target.fetchUrl(url, store), body, key);
      }
    });

    test("invalid arguments fail as ObjectStoreError without reaching the store", async (t) => {
      const { store, p } = await setup(t);
      const isStoreError = (e: unknown) => e instanceof ObjectStoreError && e.kind === "other";
      await assert.rejects(store.put("", bytes("x")), isStoreError);
      await assert.rejects(store.put("x".repeat(1025), bytes("x")), isStoreError);
      await assert.rejects(store.put(`${p}\ud800`, bytes("x")), isStoreError);
      await assert.rejects(store.delete([`${p}a\udc00b`]), isStoreError);
      await assert.rejects(store.get(`${p}k`, { start: 5, end: 4 }), isStoreError);
      await assert.rejects(store.get(`${p}k`, { start: -1, end: 4 }), isStoreError);
      await assert.rejects(store.list(p, { limit: 0 }), isStoreError);
      await assert.rejects(store.delete([`${p}k`, ""]), isStoreError);
      await assert.rejects(store.presignGet(`${p}k`, 0), isStoreError);
    });

    test("a closed store refuses further work", async (t) => {
      const { store, p } = await setup(t);
      store.close();
      await assert.rejects(store.put(`${p}k`, bytes("x")), ObjectStoreError);
      await assert.rejects(store.get(`${p}k`), ObjectStoreError);
      await assert.rejects(store.list(p), ObjectStoreError);
    });
  });
}
