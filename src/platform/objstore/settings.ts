// The S3 client's defaults, values only: the star's flags read them without loading the store.

export const S3_CLIENT_DEFAULTS = {
  /** Bounds connecting, waiting for the response headers, and each idle gap in a body. */
  timeoutMs: 30_000,
  /** Attempts per request, retries of throttling, 5xx answers and lost connections included. */
  maxAttempts: 3,
  /** Connections kept per host. */
  connections: 64,
} as const;
