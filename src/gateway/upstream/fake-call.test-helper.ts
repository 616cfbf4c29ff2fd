// Test support: a grpc-js-like server-streaming call whose frames and status the test drives.
import { Readable } from "node:stream";
import { Metadata, status } from "@grpc/grpc-js";

/** A grpc-js-like server-stream call: frames pushed by the test, a status at the end. */
export class FakeCall<T = number> extends Readable {
  cancelled = false;
  finished = false;
  pauses = 0;
  constructor() {
    super({ objectMode: true, read() {} });
    // As the fleet client does for every call it makes.
    this.on("error", () => {});
  }
  send(frame: T) {
    this.push(frame);
  }
  finish(code: status, metadata = new Metadata()) {
    if (this.finished) return;
    this.finished = true;
    this.push(null);
    if (code !== status.OK) this.emit("error", new Error("failed"));
    this.emit("status", { code, details: `ended ${code}`, metadata });
  }
  cancel() {
    this.cancelled = true;
    this.finish(status.CANCELLED);
  }
  override pause() {
    this.pauses++;
    return super.pause();
  }
}
