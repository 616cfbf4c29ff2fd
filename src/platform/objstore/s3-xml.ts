// The XML of the S3 operations the store makes: list results, delete results, errors, and the
// multi-object delete's request body. Values stay strings exactly as sent (a key `007` or ` a `
// is that key).
import { SaxesParser } from "saxes";

/**
 * Calls `leaf` with every element's path (`ListBucketResult/Contents/Key`) and its own text, as
 * it closes, in document order. A streaming parser: a listing's page of 100 keys parses in
 * about a quarter of the time a DOM-building one took (docs/benchmarks.md, "The S3 client").
 * Throws on anything that is not well-formed XML with that root element: an answer cut short or
 * from something other than S3 is never read as a shorter one.
 */
function walk(xml: string, root: string, leaf: (path: string, text: string) => void): void {
  const parser = new SaxesParser();
  const path: string[] = [];
  let text = "";
  parser.on("opentag", (tag) => {
    if (path.length === 0 && tag.name !== root) {
      throw new Error(`expected S3's <${root}> answer, got <${tag.name}>`);
    }
    path.push(tag.name);
    text = "";
  });
  const append = (t: string): void => {
    text += t;
  };
  parser.on("text", append);
  parser.on("cdata", append);
  parser.on("closetag", () => {
    leaf(path.join("/"), text);
    path.pop();
    text = "";
  });
  parser.write(xml.trimStart()).close();
}

export interface ListedObject {
  key: string;
  size: number;
}

/**
 * A ListObjects (V1) answer. Asked with `encoding-type=url` (keys holding characters XML 1.0
 * cannot carry), S3 sends keys URL-encoded and says so in `<EncodingType>`; a store that
 * ignores the parameter (s3rver) sends them as they are.
 */
export function parseListResult(xml: string): { objects: ListedObject[]; truncated: boolean } {
  const objects: ListedObject[] = [];
  let truncated = false;
  let urlEncoded = false;
  let key = "";
  let size = 0;
  walk(xml, "ListBucketResult", (path, text) => {
    if (path === "ListBucketResult/Contents/Key") key = text;
    else if (path === "ListBucketResult/Contents/Size") size = Number(text);
    else if (path === "ListBucketResult/Contents") {
      objects.push({ key, size });
      key = "";
      size = 0;
    } else if (path === "ListBucketResult/IsTruncated") truncated = text.trim() === "true";
    else if (path === "ListBucketResult/EncodingType") urlEncoded = text.trim() === "url";
  });
  if (urlEncoded) {
    // Form encoding: "+" is a space, a "+" itself %2B.
    for (const o of objects) o.key = decodeURIComponent(o.key.replaceAll("+", " "));
  }
  return { objects, truncated };
}

export interface S3ErrorBody {
  key?: string | undefined;
  code?: string | undefined;
  message?: string | undefined;
}

/** The first key a DeleteObjects answer says failed, if one did. */
export function parseDeleteFailure(xml: string): S3ErrorBody | undefined {
  let first: S3ErrorBody | undefined;
  const current: S3ErrorBody = {};
  walk(xml, "DeleteResult", (path, text) => {
    if (first) return;
    if (path === "DeleteResult/Error/Key") current.key = text;
    else if (path === "DeleteResult/Error/Code") current.code = text;
    else if (path === "DeleteResult/Error/Message") current.message = text;
    else if (path === "DeleteResult/Error") first = current;
  });
  return first;
}

/** An error answer's code and message; neither when the body is not S3's error document. */
export function parseErrorBody(xml: string): S3ErrorBody {
  const body: S3ErrorBody = { code: undefined, message: undefined };
  try {
    walk(xml, "Error", (path, text) => {
      if (path === "Error/Code") body.code = text;
      else if (path === "Error/Message") body.message = text;
    });
    return body;
  } catch {
    return { code: undefined, message: undefined };
  }
}

/** Text as an element's content, line ends included (a parser would fold a raw CR into LF). */
export const xmlText = (s: string): string =>
  s.replace(/[&<>\r\n\u0085\u2028]/g, (c) =>
    c === "&"
      ? "&amp;"
      : c === "<"
        ? "&lt;"
        : c === ">"
          ? "&gt;"
          : `&#x${c.charCodeAt(0).toString(16).toUpperCase()};`,
  );

/** Characters outside XML 1.0's `Char`, which no document may hold, not even as a reference. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: these controls are what it finds.
const NOT_XML_CHAR = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/;

/** An XML document can hold `s` (with `xmlText`'s escapes); `s` is well-formed UTF-16. */
export const xmlCanCarry = (s: string): boolean => !NOT_XML_CHAR.test(s);

/** A DeleteObjects request's body, answering only the keys that failed; `xmlCanCarry` each key. */
export function deleteBody(keys: readonly string[]): string {
  const objects = keys.map((key) => `<Object><Key>${xmlText(key)}</Key></Object>`).join("");
  return `<Delete><Quiet>true</Quiet>${objects}</Delete>`;
}

/**
 * The keys of a DeleteObjects request body, as XML gives them (numeric references taken
 * literally, `&#x85;` is U+0085): what the embedded store serves to `deleteBody`'s requests.
 * Throws on a body that is not a well-formed `<Delete>`.
 */
export function parseDeleteRequest(xml: string): string[] {
  const keys: string[] = [];
  walk(xml, "Delete", (path, text) => {
    if (path === "Delete/Object/Key") keys.push(text);
  });
  return keys;
}
