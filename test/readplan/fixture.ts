// Test support for catch-up reads: an object store (s3rver) as its own process, so that it can
// be stopped under a running star; the gateway pair with the object-storage path on and off; a
// stream written straight to a star.
import assert from "node:assert/strict";
import type { DataPlaneServiceClient } from "../../src/gen/nova/v1/DataPlaneService.ts";
import { type Gateway, inProcessGateway } from "../harness/gateway.ts";
import { call, settleStar } from "../harness/grpc.ts";
import { nodeArgs, type RunningProcess, startProcess } from "../harness/process.ts";

export interface Objstore {
  proc: RunningProcess;
  url: string;
  port: number;
}

/** `npm run objstore` on `dataDir` with `buckets`, on `port` (0: a free one). */
export async function startObjstore(
  dataDir: string,
  buckets: string[],
  port = 0,
): Promise<Objstore> {
  const [command, args] = nodeArgs("src/platform/objstore/main.ts", [
    "--port",
    String(port),
    "--data-dir",
    dataDir,
    "--bucket",
    buckets.join(","),
  ]);
  const proc = await startProcess({ command, args, readyLine: /^(http:\/\/\S+:(\d+))$/ });
  return { proc, url: proc.match[1] as string, port: Number(proc.match[2]) };
}

export interface OnOff {
  /** Reads settled history from object storage (the default ReadPlan settings). */
  on: Gateway;
  /** Sends every read to the stars. */
  off: Gateway;
}

/** The two gateways in this process whose answers a catch-up test compares. */
export async function onOffGateways(stars: string[]): Promise<OnOff> {
  const on = await inProcessGateway(stars, { readplan: {} });
  try {
    return { on, off: await inProcessGateway(stars, { readplan: false }) };
  } catch (err) {
    await on.close();
    throw err;
  }
}

export async function createStream(client: DataPlaneServiceClient, bucket: string, key: string) {
  await call(client, "CreateBucket", { name: bucket });
  await call(client, "CreateStream", { bucket, key });
}

/** Record `i` of a test stream: UTF-8 text with some multi-byte characters, some headers. */
export function testRecord(i: number) {
  return {
    body: Buffer.from(`record ${i} ${"é✓".repeat(i % 3)}${"x".repeat(i % 17)}`),
    headers: i % 5 === 0 ? [{ name: Buffer.from("k"), value: Buffer.from(`v${i}`) }] : [],
  };
}

/**
 * Appends `batches` batches of `perBatch` records straight to the star, each settled into a
 * chunk of its own (SettleStar after it), batch `b` stamped `stampOf(b)`. Returns the next
 * seq_num.
 */
export async function appendBatches(
  star: { client: DataPlaneServiceClient; address: string },
  bucket: string,
  key: string,
  first: number,
  batches: number,
  perBatch: number,
  stampOf: (batch: number) => number,
): Promise<number> {
  let next = first;
  for (let b = 0; b < batches; b++) {
    const records = Array.from({ length: perBatch }, (_, i) => ({
      ...testRecord(next + i),
      timestamp_ms: String(stampOf(b)),
    }));
    const ack = await call(star.client, "Append", { bucket, key, records });
    assert.equal(ack.start?.seq_num, String(next));
    await settleStar(star.address);
    next += perBatch;
  }
  return next;
}
