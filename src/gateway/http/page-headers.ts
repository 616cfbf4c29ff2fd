// What an HTML page that acts on the gateway (the console, the OpenAPI browser at /docs) answers
// with besides its CSP: never framed (X-Frame-Options for browsers that read no
// frame-ancestors: clickjacking), never sniffed, no referrer sent on.
export const PAGE_HEADERS = {
  "x-frame-options": "DENY",
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
} as const;
