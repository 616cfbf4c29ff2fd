// The caches and pools of a process, each with the memory it holds and the bound it keeps to,
// read when asked (the gateway's /metrics, the star's StarStats), so a leak shows as a part
// over its bound or as memory that no part accounts for.

export interface MemoryPart {
  name: string;
  /** Bytes held now: the memory kept alive, not the length of the views into it. */
  held: number;
  /** The most the part may hold, bytes. */
  bound: number;
}

export class MemoryParts {
  readonly #parts = new Map<string, { held: () => number; bound: () => number }>();
  readonly #included: [prefix: string, parts: MemoryParts][] = [];

  /** Adds a part; a later one of the same name takes its place (a restarted component). */
  add(name: string, held: () => number, bound: () => number): void {
    this.#parts.set(name, { held, bound });
  }

  /** Another component's parts in the same process, their names after `prefix`. */
  include(prefix: string, parts: MemoryParts): void {
    this.#included.push([prefix, parts]);
  }

  snapshot(): MemoryPart[] {
    const own = [...this.#parts].map(([name, p]) => ({ name, held: p.held(), bound: p.bound() }));
    return own.concat(
      this.#included.flatMap(([prefix, parts]) =>
        parts.snapshot().map((p) => ({ ...p, name: prefix + p.name })),
      ),
    );
  }
}
