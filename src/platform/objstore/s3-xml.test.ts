import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import {
  deleteBody,
  parseDeleteFailure,
  parseDeleteRequest,
  parseErrorBody,
  parseListResult,
  xmlText,
} from "./s3-xml.ts";

/** Strings XML 1.0 can carry: every key S3 can list without URL encoding. */
const xmlString = fc
  .string({ unit: "binary", maxLength: 40 })
  .filter((s) => /^[\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]*$/u.test(s));

const listXml = (keys: readonly string[], truncated: string) =>
  `<?xml version="1.0" encoding="UTF-8"?>\n<ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/">\n  <Name>nova</Name>\n  <IsTruncated>${truncated}</IsTruncated>\n${keys
    .map(
      (k, i) =>
        `  <Contents>\n    <Key>${xmlText(k)}</Key>\n    <Size>${i * 7}</Size>\n  </Contents>\n`,
    )
    .join("")}</ListBucketResult>`;

test("a list result's keys come back exactly as listed, sizes and truncation with them", () => {
  fc.assert(
    fc.property(fc.array(xmlString, { maxLength: 5 }), fc.boolean(), (keys, truncated) => {
      assert.deepEqual(parseListResult(listXml(keys, String(truncated))), {
        objects: keys.map((key, i) => ({ key, size: i * 7 })),
        truncated,
      });
    }),
  );
});

test("keys that look like numbers, entities or padding stay the strings they are", () => {
  const keys = ["007", "1e3", " a ", "", "a&b<c>", "\r\n", "true", "\u0085\u2028"];
  assert.deepEqual(
    parseListResult(listXml(keys, "false")).objects.map((o) => o.key),
    keys,
  );
  assert.deepEqual(
    parseListResult(
      "<ListBucketResult><Contents><Key>a&#13;&#x41;&amp;</Key><Size>3</Size></Contents></ListBucketResult>",
    ),
    { objects: [{ key: "a\rA&", size: 3 }], truncated: false },
  );
});

test("an empty listing, and one without IsTruncated, is complete and empty", () => {
  assert.deepEqual(parseListResult("<ListBucketResult/>"), { objects: [], truncated: false });
  assert.deepEqual(parseListResult(listXml([], "false")), { objects: [], truncated: false });
});

test("a delete body names every key, escaped, and asks for failures only", () => {
  fc.assert(
    fc.property(
      fc.array(
        xmlString.filter((s) => s.length > 0),
        { minLength: 1, maxLength: 5 },
      ),
      (keys) => {
        const body = deleteBody(keys);
        assert.ok(body.startsWith("<Delete><Quiet>true</Quiet><Object>"), body);
        // The same escaping a listing of those keys reads back.
        const listed = body
          .replace("<Delete><Quiet>true</Quiet>", "<ListBucketResult>")
          .replace("</Delete>", "</ListBucketResult>")
          .replaceAll("<Object>", "<Contents>")
          .replaceAll("</Object>", "</Contents>");
        assert.deepEqual(
          parseListResult(listed).objects.map((o) => o.key),
          keys,
        );
        assert.ok(!/[\r\n]/.test(body), "line ends are escaped");
      },
    ),
  );
});

test("property: a delete body's keys read back exactly, control characters and all", () => {
  fc.assert(
    fc.property(fc.array(xmlString, { maxLength: 5 }), (keys) => {
      assert.deepEqual(parseDeleteRequest(deleteBody(keys)), keys);
    }),
  );
  // An HTML decoder reads &#x85; as U+2026; XML takes it as U+0085.
  assert.deepEqual(parseDeleteRequest(deleteBody(["a\u0085b"])), ["a\u0085b"]);
  assert.throws(() => parseDeleteRequest("<Delete><Object><Key>a</Delete>"));
});

test("a delete result names its first failure, or none", () => {
  assert.equal(parseDeleteFailure("<DeleteResult/>"), undefined);
  assert.equal(
    parseDeleteFailure("<DeleteResult><Deleted><Key>a</Key></Deleted></DeleteResult>"),
    undefined,
  );
  assert.deepEqual(
    parseDeleteFailure(
      "<DeleteResult><Error><Key> 7 </Key><Code>AccessDenied</Code><Message>no</Message></Error><Error><Key>b</Key><Code>InternalError</Code></Error></DeleteResult>",
    ),
    { key: " 7 ", code: "AccessDenied", message: "no" },
  );
});

test("an error answer gives its code and message; anything else gives neither", () => {
  assert.deepEqual(
    parseErrorBody(
      '<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>NoSuchKey</Code><Message>The specified key does not exist.</Message><Key>k</Key></Error>',
    ),
    { code: "NoSuchKey", message: "The specified key does not exist." },
  );
  for (const body of ["", "<html><body>Bad Gateway</body></html>", "not xml <", "{}"]) {
    assert.deepEqual(parseErrorBody(body), { code: undefined, message: undefined }, body);
  }
});

test("a listing cut short, not XML, or not S3's is an error, never a shorter listing", () => {
  const whole = listXml(["a", "b"], "false");
  for (const other of ["<html><body>OK</body></html>", "<Error><Code>X</Code></Error>"]) {
    assert.throws(() => parseListResult(other), /expected S3's <ListBucketResult> answer/);
    assert.throws(() => parseDeleteFailure(other), /expected S3's <DeleteResult> answer/);
  }
  for (const cut of [
    whole.slice(0, whole.indexOf("<Contents>", 80)),
    whole.slice(0, -5),
    "<html>",
  ]) {
    assert.throws(() => parseListResult(cut), Error, cut);
  }
  assert.throws(() => parseDeleteFailure("<DeleteResult><Error>"), Error);
});

test("CDATA is text like any other", () => {
  assert.deepEqual(
    parseListResult(
      "<ListBucketResult><Contents><Key><![CDATA[a<b]]>&amp;</Key><Size>5</Size></Contents></ListBucketResult>",
    ).objects,
    [{ key: "a<b&", size: 5 }],
  );
});

test("URL-encoded keys (encoding-type=url) are decoded only when the answer says so", () => {
  const encoded =
    "<ListBucketResult><EncodingType>url</EncodingType><Contents><Key>a%19%07+b%2B%25</Key><Size>1</Size></Contents></ListBucketResult>";
  assert.deepEqual(parseListResult(encoded).objects, [{ key: "a\u0019\u0007 b+%", size: 1 }]);
  const raw =
    "<ListBucketResult><Contents><Key>a%19+b</Key><Size>1</Size></Contents></ListBucketResult>";
  assert.deepEqual(parseListResult(raw).objects, [{ key: "a%19+b", size: 1 }]);
  // Whitespace before the declaration, as some proxies leave it.
  assert.deepEqual(parseListResult(`\n  <?xml version="1.0"?>${raw}`).objects, [
    { key: "a%19+b", size: 1 },
  ]);
});
