/** What a caller can do about a failure: retry later, back off, fix the credentials, or give up. */
export type ObjectStoreErrorKind = "unavailable" | "timeout" | "denied" | "other";

export class ObjectStoreError extends Error {
  override readonly name = "ObjectStoreError";

  readonly kind: ObjectStoreErrorKind;
  /** The object key (or prefix) the operation was about; undefined for bucket-wide operations. */
  readonly key: string | undefined;

  constructor(kind: ObjectStoreErrorKind, key: string | undefined, message: string) {
    super(message);
    this.kind = kind;
    this.key = key;
  }
}
