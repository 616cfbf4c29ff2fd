import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import {
  encodeFrame,
  type Frame,
  FrameDecoder,
  FrameError,
  MAX_FRAME_BYTES,
  MAX_FRAME_PAYLOAD_BYTES,
} from "./frame.ts";

const bytes = (max = 64) => fc.uint8Array({ maxLength: max });
const frameArb: fc.Arbitrary<Frame> = fc.oneof(
  fc.record({
    terminal: fc.constant(false as const),
    compression: fc.constantFrom("none" as const, "zstd" as const, "gzip" as const),
    reconnectAdvised: fc.boolean(),
    payload: bytes(),
  }),
  fc.record({
    terminal: fc.constant(true as const),
    status: fc.integer({ min: 0, max: 0xffff }),
    body: bytes(),
  }),
);

/** `data` cut at the given offsets. */
function split(data: Uint8Array, cuts: number[]): Uint8Array[] {
  const at = [...new Set(cuts.map((c) => c % (data.length + 1)))].sort((a, b) => a - b);
  const parts: Uint8Array[] = [];
  let from = 0;
  for (const c of [...at, data.length]) {
    parts.push(data.subarray(from, c));
    from = c;
  }
  return parts;
}

function concat(parts: Uint8Array[]): Uint8Array {
  return Uint8Array.from(parts.flatMap((p) => [...p]));
}

test("decode(encode(frames)) gives the frames back, however the bytes are chunked", () => {
  fc.assert(
    fc.property(fc.array(frameArb, { maxLength: 8 }), fc.array(fc.nat()), (frames, cuts) => {
      const wire = concat(frames.map(encodeFrame));
      const decoder = new FrameDecoder();
      const got = split(wire, cuts).flatMap((chunk) => decoder.push(chunk));
      assert.deepEqual(
        got.map((f) =>
          f.terminal ? { ...f, body: [...f.body] } : { ...f, payload: [...f.payload] },
        ),
        frames.map((f) =>
          f.terminal ? { ...f, body: [...f.body] } : { ...f, payload: [...f.payload] },
        ),
      );
      assert.equal(decoder.buffered, 0);
    }),
  );
});

test("a frame's bytes are its length, flag and body, as S2's SDK frames them", () => {
  assert.deepEqual(
    [
      ...encodeFrame({
        terminal: false,
        compression: "gzip",
        reconnectAdvised: true,
        payload: Uint8Array.of(7),
      }),
    ],
    [0, 0, 2, 0x50, 7],
  );
  assert.deepEqual(
    [...encodeFrame({ terminal: true, status: 412, body: Uint8Array.of(0x7b, 0x7d) })],
    [0, 0, 5, 0x80, 0x01, 0x9c, 0x7b, 0x7d],
  );
});

test("a prefix of a frame yields nothing and keeps its bytes", () => {
  fc.assert(
    fc.property(frameArb, fc.nat(), (frame, n) => {
      const wire = encodeFrame(frame);
      const cut = n % wire.length;
      const decoder = new FrameDecoder();
      assert.deepEqual(decoder.push(wire.subarray(0, cut)), []);
      assert.equal(decoder.buffered, cut);
      assert.equal(decoder.push(wire.subarray(cut)).length, 1);
    }),
  );
});

test("the largest frame passes; one byte more is refused on either side", () => {
  const payload = new Uint8Array(MAX_FRAME_PAYLOAD_BYTES);
  const wire = encodeFrame({
    terminal: false,
    compression: "none",
    reconnectAdvised: false,
    payload,
  });
  assert.equal(new FrameDecoder().push(wire).length, 1);
  assert.throws(
    () =>
      encodeFrame({
        terminal: false,
        compression: "none",
        reconnectAdvised: false,
        payload: new Uint8Array(MAX_FRAME_PAYLOAD_BYTES + 1),
      }),
    FrameError,
  );
  const over = MAX_FRAME_BYTES + 1;
  // Refused from the length alone: the body is never waited for.
  assert.throws(
    () => new FrameDecoder().push(Uint8Array.of(over >>> 16, (over >>> 8) & 0xff, over & 0xff)),
    /exceeds/,
  );
});

test("bytes that cannot be a frame are refused, after the frames before them", () => {
  const good = encodeFrame({
    terminal: false,
    compression: "none",
    reconnectAdvised: false,
    payload: Uint8Array.of(1),
  });
  const bad: [string, Uint8Array][] = [
    ["zero length", Uint8Array.of(0, 0, 0)],
    ["compression bits 11", Uint8Array.of(0, 0, 1, 0x60)],
    ["terminal without status", Uint8Array.of(0, 0, 2, 0x80, 1)],
  ];
  for (const [name, wire] of bad) {
    const alone = new FrameDecoder();
    assert.throws(() => alone.push(wire), FrameError, name);
    assert.throws(() => alone.push(good), FrameError, name);
    assert.throws(() => alone.end(), FrameError, name);
    // In one chunk with a good frame before it: the good frame comes out, the error is held.
    const after = new FrameDecoder();
    assert.equal(after.push(Uint8Array.from([...good, ...wire, ...good])).length, 1, name);
    assert.throws(() => after.end(), FrameError, name);
    assert.throws(() => after.push(good), FrameError, name);
  }
});

test("a stream that ends inside a frame is refused at its end; one between frames is not", () => {
  fc.assert(
    fc.property(frameArb, fc.nat(), (frame, n) => {
      const wire = encodeFrame(frame);
      const decoder = new FrameDecoder();
      decoder.push(wire.subarray(0, n % wire.length));
      if (n % wire.length === 0) decoder.end();
      else assert.throws(() => decoder.end(), FrameError);
    }),
  );
});

test("a status that does not fit 2 bytes is not encoded", () => {
  assert.throws(
    () => encodeFrame({ terminal: true, status: 70_000, body: new Uint8Array() }),
    FrameError,
  );
});
