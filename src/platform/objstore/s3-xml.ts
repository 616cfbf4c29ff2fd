// The XML of the S3 operations the store makes: list results, delete results, errors, and the
// multi-object delete's request body. Values stay strings exactly as sent (a key `007` or ` a `
// is that key).
import { XMLParser } from "fast-xml-parser";

/** Elements that repeat, whatever their count in one answer. */
const REPEATED = new Set(["ListBucketResult.Contents", "DeleteResult.Error"]);

const parser = new XMLParser({
  parseTagValue: false,
  trimValues: false,
  ignoreDeclaration: true,
  htmlEntities: true,
  isArray: (_name, path, _leaf, isAttribute) => !isAttribute && REPEATED.has(String(path)),
});

type Node = Record<string, unknown>;

const nodeOf = (value: unknown): Node =>
  typeof value === "object" && value !== null ? (value as Node) : {};
const textOf = (value: unknown): string | undefined =>
  typeof value === "string" ? value : value === undefined ? undefined : "";
const listOf = (value: unknown): Node[] => (Array.isArray(value) ? value.map(nodeOf) : []);

/** A document's root element, whatever it is named. */
function rootOf(xml: string, name: string): Node {
  return nodeOf(nodeOf(parser.parse(xml))[name]);
}

export interface ListedObject {
  key: string;
  size: number;
}

/** A ListObjects (V1) answer. */
export function parseListResult(xml: string): { objects: ListedObject[]; truncated: boolean } {
  const root = rootOf(xml, "ListBucketResult");
  return {
    objects: listOf(root.Contents).map((o) => ({
      key: textOf(o.Key) ?? "",
      size: Number(textOf(o.Size) ?? 0),
    })),
    truncated: textOf(root.IsTruncated)?.trim() === "true",
  };
}

export interface S3ErrorBody {
  key?: string;
  code?: string;
  message?: string;
}

/** The first key a DeleteObjects answer says failed, if one did. */
export function parseDeleteFailure(xml: string): S3ErrorBody | undefined {
  const [first] = listOf(rootOf(xml, "DeleteResult").Error);
  if (!first) return undefined;
  return { key: textOf(first.Key), code: textOf(first.Code), message: textOf(first.Message) };
}

/** An error answer's code and message; nothing when the body is not S3's error document. */
export function parseErrorBody(xml: string): S3ErrorBody {
  try {
    const root = nodeOf(parser.parse(xml).Error);
    return { code: textOf(root.Code), message: textOf(root.Message) };
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

/** A DeleteObjects request's body, answering only the keys that failed. */
export function deleteBody(keys: readonly string[]): string {
  const objects = keys.map((key) => `<Object><Key>${xmlText(key)}</Key></Object>`).join("");
  return `<Delete><Quiet>true</Quiet>${objects}</Delete>`;
}
