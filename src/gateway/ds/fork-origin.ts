// A fork's origin as its descriptor keeps it (`fork_origin`, opaque to the star): the source's
// key and stream id, the fork offset and sub-offset. A repeated fork PUT matches on it, and a
// deletion finds a fork's source by it (delete.ts).
export interface ForkOrigin {
  key: string;
  id: string;
  offset: string;
  sub: string;
}

export function forkOrigin(origin: ForkOrigin): string {
  return JSON.stringify([origin.key, origin.id, origin.offset, origin.sub]);
}

/** The origin, or undefined for a stream that is not a fork (or not one this face made). */
export function parseForkOrigin(text: string): ForkOrigin | undefined {
  if (text === "") return undefined;
  try {
    const v: unknown = JSON.parse(text);
    if (!Array.isArray(v) || v.length !== 4 || !v.every((x) => typeof x === "string")) {
      return undefined;
    }
    const [key, id, offset, sub] = v as [string, string, string, string];
    return { key, id, offset, sub };
  } catch {
    return undefined;
  }
}
