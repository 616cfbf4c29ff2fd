import assert from "node:assert/strict";
import { test } from "node:test";
import { Metadata, type ServiceError } from "@grpc/grpc-js";
import type { Bucket } from "../../gen/nova/v1/Bucket.ts";
import type { DataPlaneServiceHandlers } from "../../gen/nova/v1/DataPlaneService.ts";
import type { ListBucketsRequest__Output } from "../../gen/nova/v1/ListBucketsRequest.ts";
import { parseApiKey } from "./api-keys.ts";
import { guardHandlers } from "./guard.ts";
import { StarAuth } from "./star-auth.ts";

const auth = new StarAuth({
  signingKey: "a signing key of at least 32 bytes!",
  apiKeys: [
    parseApiKey("two two-secret nova:read:bk-b nova:read:bk-d nova:read:bk-zz", "t"),
    parseApiKey("all all-secret nova:read:*", "t"),
  ],
});

/** A ListBuckets over a catalog of `names`, in pages of `limit`, counting the pages it read. */
function catalog(names: string[]) {
  const asked: ListBucketsRequest__Output[] = [];
  const ListBuckets: DataPlaneServiceHandlers["ListBuckets"] = (call, callback) => {
    const { prefix, start_after, limit } = call.request;
    asked.push(call.request);
    const matching = names.filter((n) => n.startsWith(prefix) && n > start_after).sort();
    const page = matching.slice(0, limit > 0 ? limit : 1000);
    const next = matching.length > page.length ? (page.at(-1) ?? "") : "";
    callback(null, { buckets: page.map((name): Bucket => ({ name })), next });
  };
  return { asked, handlers: { ListBuckets } as unknown as DataPlaneServiceHandlers };
}

function list(
  handlers: DataPlaneServiceHandlers,
  key: string,
  request: Partial<ListBucketsRequest__Output>,
): Promise<{ buckets: string[]; next: string }> {
  const token = auth.exchange({
    key_id: key,
    secret: `${key}-secret`,
    ttl_seconds: 0,
    grant: "scope",
    scope: key === "all" ? "nova:read:*" : "nova:read:bk-b nova:read:bk-d nova:read:bk-zz",
  }).token;
  const metadata = new Metadata();
  metadata.add("authorization", `Bearer ${token}`);
  const call = {
    metadata,
    cancelled: false,
    request: { prefix: "", start_after: "", limit: 0, ...request },
  };
  return new Promise((resolve, reject) => {
    guardHandlers(auth, handlers).ListBuckets(call as never, (err, res) =>
      err
        ? reject(err as ServiceError)
        : resolve({
            buckets: (res?.buckets ?? []).map((b) => b.name ?? ""),
            next: res?.next ?? "",
          }),
    );
  });
}

test("a token of named buckets lists those that exist, each looked up by name, not the catalog", async () => {
  const names = Array.from({ length: 500 }, (_, i) => `bk-${String(i).padStart(3, "0")}`);
  const { asked, handlers } = catalog([...names, "bk-b", "bk-d"]);
  assert.deepEqual(await list(handlers, "two", {}), { buckets: ["bk-b", "bk-d"], next: "" });
  // One lookup per bucket it names (bk-zz does not exist), whatever the catalog holds.
  assert.equal(asked.length, 3);
  assert.ok(asked.every((r) => r.limit === 1 && r.start_after === ""));
  // Pages and cursors name only its buckets.
  assert.deepEqual(await list(handlers, "two", { limit: 1 }), { buckets: ["bk-b"], next: "bk-b" });
  assert.deepEqual(await list(handlers, "two", { limit: 1, start_after: "bk-b" }), {
    buckets: ["bk-d"],
    next: "",
  });
  assert.deepEqual(await list(handlers, "two", { prefix: "bk-d" }), {
    buckets: ["bk-d"],
    next: "",
  });
});

test("a token that reads every bucket gets the listing as it is", async () => {
  const { asked, handlers } = catalog(["a1", "a2", "b1"]);
  assert.deepEqual(await list(handlers, "all", { limit: 2 }), {
    buckets: ["a1", "a2"],
    next: "a2",
  });
  assert.equal(asked.length, 1);
});
