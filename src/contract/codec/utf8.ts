// Text kept as UTF-8 (stream names, producer ids, record bytes shown as text) comes back exactly
// as written: bytes that are not UTF-8 are an error, never U+FFFD, and a leading EF BB BF is the
// character U+FEFF, which TextDecoder would otherwise drop.
const exact = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/** The text of UTF-8 bytes, every character kept; throws a TypeError on bytes that are not UTF-8. */
export function decodeUtf8Exact(bytes: Uint8Array): string {
  return exact.decode(bytes);
}
