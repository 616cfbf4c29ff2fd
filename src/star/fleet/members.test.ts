import assert from "node:assert/strict";
import { test } from "node:test";
import { Fleet, FleetSpecError, parseMember } from "./members.ts";

test("members parse as NAME=HOST:PORT", () => {
  assert.deepEqual(parseMember("s1=127.0.0.1:7171"), { name: "s1", address: "127.0.0.1:7171" });
  assert.deepEqual(parseMember("a.b_c-1=star.example:1"), {
    name: "a.b_c-1",
    address: "star.example:1",
  });
  assert.deepEqual(parseMember("v6=[::1]:65535"), { name: "v6", address: "[::1]:65535" });
  for (const bad of [
    "s1",
    "=h:1",
    "s1=",
    "s1=h",
    "s1=h:0",
    "s1=h:65536",
    "s 1=h:1",
    "s1=h:1:2",
    `${"n".repeat(65)}=h:1`,
  ]) {
    assert.throws(() => parseMember(bad), FleetSpecError, bad);
  }
});

test("a fleet names this star once, every name and address once", () => {
  const m = (name: string, port: number) => ({ name, address: `127.0.0.1:${port}` });
  const fleet = new Fleet("b", [m("a", 1), m("b", 2), m("c", 3)]);
  assert.deepEqual(fleet.self, m("b", 2));
  assert.deepEqual(fleet.describe(), ["a=127.0.0.1:1", "b=127.0.0.1:2", "c=127.0.0.1:3"]);
  assert.throws(() => new Fleet("d", [m("a", 1)]), /not in the fleet/);
  assert.throws(() => new Fleet("a", [m("a", 1), m("a", 2)]), /listed twice/);
  assert.throws(() => new Fleet("a", [m("a", 1), m("b", 1)]), /listed twice/);
});

test("leaders: a fleet of one leads everything; a larger one spreads streams and buckets", () => {
  const single = Fleet.single("solo", "127.0.0.1:9");
  assert.equal(single.leaderOf("b", "k"), single.self);
  assert.equal(single.bucketLeaderOf("b"), single.self);
  const members = ["a", "b", "c"].map((name, i) => ({ name, address: `h:${i + 1}` }));
  const views = members.map((m) => new Fleet(m.name, members));
  const leaders = new Set<string>();
  for (let i = 0; i < 100; i++) {
    const names = views.map((f) => f.leaderOf("bucket", `k${i}`).name);
    assert.equal(new Set(names).size, 1, "every member computes the same leader");
    leaders.add(names[0] as string);
    assert.equal(views.filter((f) => f.leads("bucket", `k${i}`)).length, 1);
  }
  assert.equal(leaders.size, 3);
});
