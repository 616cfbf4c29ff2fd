// The floor under a unary append through any Node front end of this design, for bench:gateway's
// `floor` row: `node bench/append-floor.ts STAR_ADDRESS` serves POST
// /v1/buckets/B/streams/K/records with nothing but what every such request needs: Node's
// HTTP/1.1 server, the body read and parsed (JSON.parse), the records as an Append request, one
// gRPC unary call to the star over the gateway's own bare HTTP/2 client
// (src/gateway/upstream/h2-unary.ts), and the ack as JSON (JSON.stringify). No framework, hooks,
// validation, exact integers, routing, admission, metrics or logs: its CPU per append against
// the gateway's is what those cost, and the floor itself what the two protocols cost in Node.
// Not a server to use: it trusts its input and answers any failure with a 502.

import "../scripts/help-first.ts";
import { createServer } from "node:http";
import http2 from "node:http2";
import * as grpc from "@grpc/grpc-js";
import type { MethodDefinition } from "@grpc/proto-loader";
import { nova } from "../src/contract/proto/index.ts";
import { startUnary } from "../src/gateway/upstream/h2-unary.ts";
import type { AppendRequest } from "../src/gen/nova/v1/AppendRequest.ts";
import type { AppendResponse__Output } from "../src/gen/nova/v1/AppendResponse.ts";

const star = process.argv[2];
if (!star || !/^[^\s/]+:\d+$/.test(star)) {
  process.stderr.write("usage: node bench/append-floor.ts STAR_ADDRESS (host:port)\n");
  process.exit(2);
}

const APPEND = nova.DataPlaneService.service.Append as MethodDefinition<
  AppendRequest,
  unknown,
  unknown,
  AppendResponse__Output
>;
const DEADLINE_MS = 10_000;
const PATH = /^\/v1\/buckets\/([^/]+)\/streams\/([^/]+)\/records$/;
const NO_METADATA = new grpc.Metadata();
const session = http2.connect(`http://${star}`);
session.on("error", (err) => {
  process.stderr.write(`append floor: the star's connection failed: ${err.message}\n`);
  process.exit(1);
});

const server = createServer((req, res) => {
  const match = PATH.exec(req.url ?? "");
  if (!match || req.method !== "POST") {
    res.writeHead(404).end();
    return;
  }
  const chunks: Buffer[] = [];
  req.on("data", (chunk: Buffer) => chunks.push(chunk));
  req.on("end", () => {
    const { records } = JSON.parse(Buffer.concat(chunks).toString("utf8")) as {
      records: { body: string }[];
    };
    const request: AppendRequest = {
      bucket: decodeURIComponent(match[1] as string),
      key: decodeURIComponent(match[2] as string),
      records: records.map((r) => ({ body: Buffer.from(r.body, "utf8") })),
    };
    startUnary(session, APPEND, request, NO_METADATA, Date.now() + DEADLINE_MS, (end) => {
      if (!end.response) {
        res.writeHead(502, { "content-type": "application/json" });
        res.end(JSON.stringify({ code: "upstream", message: end.status.details }));
        return;
      }
      const { start, end: last, tail } = end.response;
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ start, end: last, tail }));
    });
  });
});

server.listen(0, "127.0.0.1", () => {
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  process.stdout.write(`append floor listening on http://127.0.0.1:${port}\n`);
});

const stop = () => {
  server.close();
  server.closeAllConnections();
  session.close();
};
process.once("SIGTERM", stop);
process.once("SIGINT", stop);
