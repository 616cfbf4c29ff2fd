// RFC 7239's `Forwarded` header, read for what --forwarded-header=forwarded needs: the `for=`
// node of each element, in order (the proxies' hops, left to right), as the addresses that
// X-Forwarded-For would list. Quotes, IPv6 brackets and ports are taken off; `unknown` and
// obfuscated identifiers (`_hidden`) are kept as they are, so they count as a client of that name.
// A field that does not parse yields nothing for its elements: garbage names no client.

const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/** The `for=` nodes of every element of every `Forwarded` field, in order. */
export function forwardedFor(fields: string | string[] | undefined): string[] {
  if (fields === undefined) return [];
  const out: string[] = [];
  for (const field of Array.isArray(fields) ? fields : [fields]) {
    const elements = splitOutsideQuotes(field, ",");
    if (!elements) continue;
    for (const element of elements) {
      const node = forOf(element);
      if (node !== undefined) out.push(node);
    }
  }
  return out;
}

function forOf(element: string): string | undefined {
  const pairs = splitOutsideQuotes(element, ";");
  if (!pairs) return undefined;
  for (const pair of pairs) {
    const at = pair.indexOf("=");
    if (at < 1) continue;
    if (pair.slice(0, at).trim().toLowerCase() !== "for") continue;
    const value = unquote(pair.slice(at + 1).trim());
    return value === undefined ? undefined : nodeAddress(value);
  }
  return undefined;
}

/** A value: a token, or a quoted-string (backslash escapes one character). */
function unquote(value: string): string | undefined {
  if (!value.startsWith('"')) return TOKEN.test(value) ? value : undefined;
  if (value.length < 2 || !value.endsWith('"')) return undefined;
  return value.slice(1, -1).replace(/\\(.)/g, "$1");
}

/** `[2001:db8::1]:4711` is 2001:db8::1, `192.0.2.4:80` is 192.0.2.4; names stay as they are. */
function nodeAddress(node: string): string {
  if (node.startsWith("[")) {
    const end = node.indexOf("]");
    return end > 0 ? node.slice(1, end) : node;
  }
  const colon = node.indexOf(":");
  return colon > 0 && node.indexOf(":", colon + 1) < 0 ? node.slice(0, colon) : node;
}

/** Splits on `sep` outside quoted strings; undefined when a quote is left open. */
function splitOutsideQuotes(text: string, sep: string): string[] | undefined {
  const parts: string[] = [];
  let quoted = false;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted && c === "\\") i++;
    else if (c === '"') quoted = !quoted;
    else if (!quoted && c === sep) {
      parts.push(text.slice(start, i).trim());
      start = i + 1;
    }
  }
  if (quoted) return undefined;
  parts.push(text.slice(start).trim());
  return parts.filter((p) => p.length > 0);
}
