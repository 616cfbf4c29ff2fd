// What the protocol asks every response to carry for browsers (its section 12.7): no MIME
// sniffing of stream bytes, and fetch() from any origin (CORS still decides who may read).
export const SECURITY_HEADERS = {
  "x-content-type-options": "nosniff",
  "cross-origin-resource-policy": "cross-origin",
};
