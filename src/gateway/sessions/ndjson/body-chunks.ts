// A request body's chunks, pulled one at a time (paused mode, so an unread body is not
// buffered). Unlike the stream's own async iterator, stopping early does not destroy the
// stream: destroying a request would take its socket, and the response with it.
import type { Readable } from "node:stream";
import { HttpError } from "../../errors/index.ts";

export async function* bodyChunks(body: Readable): AsyncGenerator<Buffer> {
  for (;;) {
    const chunk = body.read() as Buffer | string | null;
    if (chunk !== null) {
      yield typeof chunk === "string" ? Buffer.from(chunk) : chunk;
      continue;
    }
    if (body.readableEnded) return;
    if (body.destroyed) {
      throw new HttpError(499, "cancelled", "the request body was cut off");
    }
    await new Promise<void>((resolve) => {
      const wake = () => {
        body.off("readable", wake);
        body.off("end", wake);
        body.off("close", wake);
        resolve();
      };
      body.on("readable", wake);
      body.on("end", wake);
      body.on("close", wake);
    });
  }
}
