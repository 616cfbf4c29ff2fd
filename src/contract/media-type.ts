// Content types compared as HTTP compares them: by media type ("type/subtype"), case-insensitive,
// parameters ignored. The star checks an append's type this way; the gateway compares a create
// with the stream it finds the same way.

/** The media type of a Content-Type value, lower-cased, without parameters or spaces. */
export function mediaType(contentType: string): string {
  return (contentType.split(";")[0] ?? "").trim().toLowerCase();
}

export function sameMediaType(a: string, b: string): boolean {
  return mediaType(a) === mediaType(b);
}
