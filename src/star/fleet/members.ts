// A star's fleet: its own name and every member's NAME=HOST:PORT, as given by --fleet. Each
// stream is led by the member rendezvous hashing picks for `bucket/key`; each bucket descriptor
// by the member it picks for the bucket name. Without --fleet a star is a fleet of one.
import { hostPort } from "../../platform/cli/index.ts";
import { bucketItem, rendezvous, streamItem } from "./rendezvous.ts";

export interface Member {
  readonly name: string;
  /** HOST:PORT other stars and clients dial. */
  readonly address: string;
}

export class FleetSpecError extends Error {
  override readonly name = "FleetSpecError";
}

const NAME = /^[A-Za-z0-9._-]{1,64}$/;

/** Parses one `NAME=HOST:PORT` entry. */
export function parseMember(entry: string): Member {
  const eq = entry.indexOf("=");
  const name = entry.slice(0, eq);
  const address = entry.slice(eq + 1);
  if (eq < 0 || !NAME.test(name)) {
    throw new FleetSpecError(
      `fleet member ${JSON.stringify(entry)}: expected NAME=HOST:PORT, NAME 1 to 64 of A-Z a-z 0-9 . _ -`,
    );
  }
  const problem = hostPort(address);
  if (problem !== undefined) {
    throw new FleetSpecError(
      `fleet member ${JSON.stringify(entry)}: ${JSON.stringify(address)} ${problem}`,
    );
  }
  return { name, address };
}

export class Fleet {
  readonly self: Member;
  readonly members: readonly Member[];
  /** The members that lead streams (docs/fleet.md, "Leases"): all, until the leases say. */
  #leading: readonly Member[];

  /** `members` must name `self`; names and addresses must be unique. */
  constructor(self: string, members: readonly Member[]) {
    const names = new Set<string>();
    const addresses = new Set<string>();
    for (const m of members) {
      if (names.has(m.name)) throw new FleetSpecError(`fleet member ${m.name} is listed twice`);
      if (addresses.has(m.address)) {
        throw new FleetSpecError(`fleet address ${m.address} is listed twice`);
      }
      names.add(m.name);
      addresses.add(m.address);
    }
    const me = members.find((m) => m.name === self);
    if (!me) {
      throw new FleetSpecError(
        `this star (--self ${self}) is not in the fleet (${members.map((m) => m.name).join(", ")})`,
      );
    }
    this.self = me;
    this.members = members;
    this.#leading = members;
  }

  /** Who leads streams now, by name; an empty view leaves it as it was. */
  setView(names: readonly string[]): void {
    const leading = this.members.filter((m) => names.includes(m.name));
    if (leading.length > 0) this.#leading = leading;
  }

  /** The names of the members leading streams now. */
  get view(): string[] {
    return this.#leading.map((m) => m.name);
  }

  /** A fleet of one: this star leads everything. */
  static single(self: string, address: string): Fleet {
    return new Fleet(self, [{ name: self, address }]);
  }

  get size(): number {
    return this.members.length;
  }

  leaderOf(bucket: string, key: string): Member {
    return this.members.length === 1
      ? this.self
      : rendezvous(this.#leading, streamItem(bucket, key));
  }

  /** The member that writes a bucket's descriptor. */
  bucketLeaderOf(bucket: string): Member {
    return this.members.length === 1 ? this.self : rendezvous(this.#leading, bucketItem(bucket));
  }

  leads(bucket: string, key: string): boolean {
    return this.leaderOf(bucket, key) === this.self;
  }

  /** NAME=HOST:PORT for each member, as Health reports them. */
  describe(): string[] {
    return this.members.map((m) => `${m.name}=${m.address}`);
  }
}
