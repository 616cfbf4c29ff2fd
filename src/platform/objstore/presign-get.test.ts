import assert from "node:assert/strict";
import { test } from "node:test";
import { GetObjectCommand, S3Client } from "@aws-sdk/client-s3";
import { getSignedUrl } from "@aws-sdk/s3-request-presigner";
import fc from "fast-check";
import { createGetPresigner } from "./presign-get.ts";

/** The SDK's presigner as the star configured it before: the oracle. */
async function sdkUrl(
  endpoint: string,
  forcePathStyle: boolean,
  region: string,
  secret: string,
  bucket: string,
  key: string,
  expiresIn: number,
  signingDate: Date,
): Promise<string> {
  const client = new S3Client({
    endpoint,
    region,
    forcePathStyle,
    credentials: { accessKeyId: "AKIDEXAMPLE", secretAccessKey: secret },
    requestChecksumCalculation: "WHEN_REQUIRED",
    responseChecksumValidation: "WHEN_REQUIRED",
  });
  try {
    return await getSignedUrl(client, new GetObjectCommand({ Bucket: bucket, Key: key }), {
      expiresIn,
      signingDate,
    });
  } finally {
    client.destroy();
  }
}

test("the same URL as the AWS SDK's presigner, for any key, time, expiry, endpoint and style", async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.constantFrom(
        "http://127.0.0.1:4568",
        "http://localhost:9000/prefix",
        "https://s3.eu-west-1.amazonaws.com",
      ),
      fc.boolean(),
      fc.constantFrom("us-east-1", "eu-west-1"),
      fc.string({ minLength: 1, maxLength: 40 }),
      // Dotted names, and those with "..", ".-" or an address's shape, are not virtual-hostable.
      fc.oneof(
        fc.stringMatching(/^[a-z0-9][a-z0-9-]{1,20}[a-z0-9]$/),
        fc.stringMatching(/^[a-z0-9][a-z0-9.-]{1,20}[a-z0-9]$/),
        fc.constantFrom("10.0.0.1", "ab", "a".repeat(64)),
      ),
      fc.string({ unit: "binary", minLength: 1, maxLength: 60 }),
      fc.integer({ min: 1, max: 604_800 }),
      fc.date({ min: new Date("2000-01-01"), max: new Date("2099-12-31"), noInvalidDate: true }),
      async (endpoint, forcePathStyle, region, secret, bucket, key, expires, date) => {
        // The SDK itself makes no URL of a dotted bucket at an address without path style.
        fc.pre(forcePathStyle || !bucket.includes(".") || !endpoint.includes("127.0.0.1"));
        const presign = createGetPresigner({
          endpoint,
          forcePathStyle,
          region,
          accessKeyId: "AKIDEXAMPLE",
          secretAccessKey: secret,
        });
        // The SDK signs at whole seconds.
        const at = new Date(Math.floor(date.getTime() / 1000) * 1000);
        assert.equal(
          presign(bucket, key, expires, at),
          await sdkUrl(endpoint, forcePathStyle, region, secret, bucket, key, expires, at),
        );
      },
    ),
    { numRuns: 300 },
  );
});

test("a new day gets a new signing key", async () => {
  const presign = createGetPresigner({
    endpoint: "http://127.0.0.1:4568",
    region: "us-east-1",
    accessKeyId: "AKIDEXAMPLE",
    secretAccessKey: "secret",
  });
  for (const at of ["2026-11-29T23:59:59Z", "2026-11-30T00:00:00Z", "2026-11-29T12:00:00Z"]) {
    const date = new Date(at);
    assert.equal(
      presign("nova", "streams/k", 900, date),
      await sdkUrl(
        "http://127.0.0.1:4568",
        true,
        "us-east-1",
        "secret",
        "nova",
        "streams/k",
        900,
        date,
      ),
    );
  }
});
