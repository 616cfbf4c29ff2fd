// Star fleets in tests: members on free ports, each started with --self and the --fleet list.
import { Fleet, type Member } from "../../src/star/fleet/members.ts";
import { freePort } from "./ports.ts";
import { type StarProcess, startStarProcess } from "./star-process.ts";

/** One member per name, each on a free 127.0.0.1 port. */
export async function fleetMembers(names: readonly string[]): Promise<Member[]> {
  const ports = await Promise.all(names.map(() => freePort()));
  return names.map((name, i) => ({ name, address: `127.0.0.1:${ports[i]}` }));
}

/**
 * Member `name` of `members` as a star process on its address, with more flags. Without a
 * `--lease-ms` among them its lease is 10 minutes: no member is taken over while a test stops
 * one (docs/fleet.md, "Leases"); tests of takeovers give their own.
 */
export function startMember(
  storage: string[],
  members: Member[],
  name: string,
  args: string[] = [],
): Promise<StarProcess> {
  const self = members.find((m) => m.name === name) as Member;
  return startStarProcess(storage, {
    listen: self.address,
    args: [
      "--self",
      name,
      "--fleet",
      members.map((m) => `${m.name}=${m.address}`).join(","),
      ...(args.includes("--lease-ms") ? [] : ["--lease-ms", "600000"]),
      ...args,
    ],
  });
}

/** A stream key in `bucket` whose leader in `members` is `leader`. */
export function keyLedBy(members: Member[], bucket: string, leader: string, prefix = "k"): string {
  const fleet = new Fleet(members[0]?.name ?? "", members);
  for (let i = 0; ; i++) {
    const key = `${prefix}-${i}`;
    if (fleet.leaderOf(bucket, key).name === leader) return key;
  }
}
