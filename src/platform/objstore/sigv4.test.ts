import assert from "node:assert/strict";
import { Readable } from "node:stream";
import { test } from "node:test";
import {
  DeleteObjectsCommand,
  GetObjectCommand,
  ListObjectsCommand,
  PutObjectCommand,
  S3Client,
} from "@aws-sdk/client-s3";
import fc from "fast-check";
import { parseEndpoint, targetOf } from "./s3-url.ts";
import { authorization, canonicalQuery, createSigner } from "./sigv4.ts";

interface Captured {
  method: string;
  path: string;
  query: Record<string, string | null>;
  headers: Record<string, string>;
}

/** What the SDK sends for a command: its request caught before the network, answered empty. */
async function sdkRequest(
  endpoint: string,
  region: string,
  secret: string,
  send: (client: S3Client) => Promise<unknown>,
): Promise<Captured> {
  let captured: Captured | undefined;
  const client = new S3Client({
    endpoint,
    region,
    forcePathStyle: true,
    credentials: { accessKeyId: "AKIDEXAMPLE", secretAccessKey: secret },
    requestChecksumCalculation: "WHEN_REQUIRED",
    responseChecksumValidation: "WHEN_REQUIRED",
    maxAttempts: 1,
    requestHandler: {
      handle: async (request: Captured) => {
        captured = request;
        return { response: { statusCode: 200, headers: {}, body: Readable.from([]) } };
      },
    },
  });
  try {
    await send(client).catch(() => undefined);
  } finally {
    client.destroy();
  }
  assert.ok(captured, "the SDK sent nothing");
  return captured;
}

const commands = fc.oneof(
  fc.record({
    op: fc.constant("put" as const),
    key: fc.string({ unit: "binary", minLength: 1, maxLength: 60 }),
    body: fc.uint8Array({ maxLength: 300 }),
    ifNoneMatch: fc.option(fc.constant("*"), { nil: undefined }),
  }),
  fc.record({
    op: fc.constant("get" as const),
    key: fc.string({ unit: "binary", minLength: 1, maxLength: 60 }),
  }),
  fc.record({
    op: fc.constant("list" as const),
    prefix: fc.string({ unit: "binary", maxLength: 30 }),
    marker: fc.string({ unit: "binary", maxLength: 30 }),
    limit: fc.integer({ min: 1, max: 1000 }),
  }),
  fc.record({
    op: fc.constant("delete" as const),
    keys: fc.array(fc.stringMatching(/^[a-z0-9/]{1,20}$/), { minLength: 1, maxLength: 5 }),
  }),
);

const Bucket = "nova";

/** The command the store's operation was made with through the SDK. */
function sendAs(client: S3Client, cmd: typeof commands extends fc.Arbitrary<infer C> ? C : never) {
  switch (cmd.op) {
    case "put":
      return client.send(
        new PutObjectCommand({
          Bucket,
          Key: cmd.key,
          Body: cmd.body,
          ...(cmd.ifNoneMatch === undefined ? {} : { IfNoneMatch: cmd.ifNoneMatch }),
        }),
      );
    case "get":
      return client.send(new GetObjectCommand({ Bucket, Key: cmd.key }));
    case "list":
      return client.send(
        new ListObjectsCommand({
          Bucket,
          Prefix: cmd.prefix,
          Marker: cmd.marker,
          MaxKeys: cmd.limit,
        }),
      );
    case "delete":
      return client.send(
        new DeleteObjectsCommand({
          Bucket,
          Delete: { Objects: cmd.keys.map((Key) => ({ Key })), Quiet: true },
        }),
      );
  }
}

test("the same Authorization as the AWS SDK's signer, for any request S3's store makes", async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.constantFrom("http://127.0.0.1:4568", "http://localhost:9000/prefix"),
      fc.constantFrom("us-east-1", "eu-west-1"),
      fc.string({ minLength: 1, maxLength: 40 }),
      commands,
      async (endpoint, region, secret, cmd) => {
        const req = await sdkRequest(endpoint, region, secret, (client) => sendAs(client, cmd));
        // Our path for the object is the SDK's.
        const target = targetOf(
          parseEndpoint(endpoint, true),
          Bucket,
          cmd.op === "put" || cmd.op === "get" ? cmd.key : undefined,
        );
        assert.equal(target.path.replace(/\/$/, ""), req.path.replace(/\/$/, ""));
        // Our signature of what it sent is its own.
        const sdkAuth = req.headers.authorization ?? "";
        const signedNames = /SignedHeaders=([^,]+)/.exec(sdkAuth)?.[1]?.split(";") ?? [];
        const lower = Object.fromEntries(
          Object.entries(req.headers).map(([name, value]) => [name.toLowerCase(), value]),
        );
        const headers = Object.fromEntries(signedNames.map((name) => [name, lower[name] ?? ""]));
        const query = canonicalQuery(
          Object.entries(req.query).map(([name, value]) => [name, value ?? ""] as const),
        );
        const ours = authorization(
          createSigner({ region, accessKeyId: "AKIDEXAMPLE", secretAccessKey: secret }),
          {
            method: req.method,
            path: req.path,
            query,
            headers,
            payloadHash: lower["x-amz-content-sha256"] ?? "",
          },
        );
        assert.equal(ours, sdkAuth);
      },
    ),
    { numRuns: 200 },
  );
});

test("header values are signed trimmed, inner runs of whitespace as one space", () => {
  const signer = createSigner({
    region: "us-east-1",
    accessKeyId: "AKIDEXAMPLE",
    secretAccessKey: "s",
  });
  const sign = (value: string) =>
    authorization(signer, {
      method: "GET",
      path: "/nova/k",
      query: "",
      headers: { host: "h", "x-amz-date": "20261207T000000Z", "x-amz-meta-a": value },
      payloadHash: "UNSIGNED-PAYLOAD",
    });
  assert.equal(sign(" a \t  b "), sign("a b"));
  assert.notEqual(sign("a b"), sign("ab"));
});
