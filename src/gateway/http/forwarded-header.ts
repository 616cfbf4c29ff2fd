// RFC 7239's `Forwarded` header, read for what --forwarded-header=forwarded needs: the `for=`
// node of each element, in order (the proxies' hops, left to right), as the addresses that
// X-Forwarded-For would list. Quotes, IPv6 brackets and ports are taken off; `unknown` and
// obfuscated identifiers (`_hidden`) are kept as they are, so they count as a client of that name.
// An element that does not parse names no client. A quote left open is a client's own broken
// element, at the left of what its proxies appended to the field (Node joins repeated headers into
// one, and some proxies append to the client's line): the field is then read from the right, so
// the proxies' elements still count and the client cannot hide behind its balancer's address.

const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/** The `for=` nodes of every element of every `Forwarded` field, in order. */
export function forwardedFor(fields: string | string[] | undefined): string[] {
  if (fields === undefined) return [];
  const out: string[] = [];
  for (const field of Array.isArray(fields) ? fields : [fields]) {
    const elements = splitOutsideQuotes(field, ",") ?? elementsFromRight(field);
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

/**
 * A field's elements, read from its right end up to a quote left open: what is left of it (the
 * broken element and anything before it) is dropped.
 */
function elementsFromRight(field: string): string[] {
  const parts: string[] = [];
  let quoted = false;
  let end = field.length;
  for (let i = field.length - 1; i >= 0; i--) {
    const c = field[i];
    if (c === '"' && !escaped(field, i)) quoted = !quoted;
    else if (!quoted && c === ",") {
      parts.push(field.slice(i + 1, end).trim());
      end = i;
    }
  }
  if (!quoted) parts.push(field.slice(0, end).trim());
  return parts.reverse().filter((p) => p.length > 0);
}

/** Whether the character at `i` follows an odd run of backslashes. */
function escaped(text: string, i: number): boolean {
  let run = 0;
  while (i - 1 - run >= 0 && text[i - 1 - run] === "\\") run++;
  return run % 2 === 1;
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
