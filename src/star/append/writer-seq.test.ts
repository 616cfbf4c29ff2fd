import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import { laterWriterSeq, writerSeqRefusal } from "./writer-seq.ts";

test("a writer seq is taken only above the last one, bytewise as UTF-8", () => {
  assert.equal(writerSeqRefusal("b", "a"), undefined);
  assert.equal(writerSeqRefusal("a", undefined), undefined);
  assert.equal(writerSeqRefusal(undefined, "a"), undefined);
  assert.ok(writerSeqRefusal("a", "a"));
  assert.ok(writerSeqRefusal("a", "b"));
  // UTF-16 order would put U+FF61 above U+1F600; UTF-8 bytes put it below.
  assert.ok(writerSeqRefusal("\uff61", "\u{1f600}"));
  assert.equal(writerSeqRefusal("\u{1f600}", "\uff61"), undefined);
});

test("the later of two writer seqs is the one a refusal would let follow the other", () => {
  fc.assert(
    fc.property(
      fc.option(fc.string(), { nil: undefined }),
      fc.option(fc.string(), { nil: undefined }),
      (a, b) => {
        const later = laterWriterSeq(a, b);
        assert.equal(later, laterWriterSeq(b, a));
        if (a === undefined || b === undefined) return assert.equal(later, a ?? b);
        const other = later === a ? b : a;
        assert.ok(later === other || writerSeqRefusal(later, other) === undefined);
      },
    ),
  );
});
