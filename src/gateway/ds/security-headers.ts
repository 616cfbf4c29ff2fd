// What the protocol asks every response to carry for browsers (its section 12.7): no MIME
// sniffing of stream bytes, and fetch() from any origin (CORS still decides who may read). And a
// stream's bytes never run as a page of the gateway's origin: a stream created as text/html and
// opened in a browser would otherwise run its scripts beside the console. A sandboxed document
// with nothing to load; fetch() and EventSource are not documents, and read the bytes as ever.
export const SECURITY_HEADERS = {
  "x-content-type-options": "nosniff",
  "cross-origin-resource-policy": "cross-origin",
  "content-security-policy": "sandbox; default-src 'none'",
};
