/** Stored bytes that break the format: never a layout the reader is missing, always damage. */
export class CorruptionError extends Error {
  readonly code = "corruption";

  constructor(message: string) {
    super(message);
    this.name = "CorruptionError";
  }
}
