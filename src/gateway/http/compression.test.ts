import assert from "node:assert/strict";
import { test } from "node:test";
import Fastify from "fastify";
import { compressionPlugin, spellOutWildcard } from "./compression.ts";

test("* is spelled out as each encoding the header does not name, with its q", () => {
  const cases: [string, string][] = [
    ["*", "zstd, br, gzip"],
    ["gzip;q=0, *", "gzip;q=0, zstd, br"],
    ["*;q=0.5, br", "zstd;q=0.5, gzip;q=0.5, br"],
    ["x-gzip;q=0, *", "x-gzip;q=0, zstd, br"],
    ["*;q=0", "zstd;q=0, br;q=0, gzip;q=0"],
    ["gzip, deflate, br", "gzip, deflate, br"],
  ];
  for (const [header, spelled] of cases) assert.equal(spellOutWildcard(header), spelled, header);
});

test("a response is never compressed with an encoding the client refused", async () => {
  const app = Fastify();
  await app.register(compressionPlugin, { minBytes: 0 });
  app.get("/", async () => ({ text: "x".repeat(4096) }));
  const encodingFor = async (accept: string) =>
    (await app.inject({ url: "/", headers: { "accept-encoding": accept } })).headers[
      "content-encoding"
    ];
  assert.equal(await encodingFor("gzip;q=0, *"), "zstd");
  assert.equal(await encodingFor("*"), "zstd");
  assert.equal(await encodingFor("zstd;q=0, br;q=0, *"), "gzip");
  assert.equal(await encodingFor("zstd;q=0, br;q=0, gzip;q=0, *"), undefined);
  assert.equal(await encodingFor("*;q=0"), undefined);
  assert.equal(await encodingFor("gzip"), "gzip");
  await app.close();
});
