// S2's end-to-end suite (S2-lite profile) but its producer's file: test/s2/e2e-profile.ts.
import { test } from "node:test";
import { runProfilePart } from "./e2e-profile.ts";

test("S2's end-to-end suite (S2-lite profile, but the producer's file) passes", (t) =>
  runProfilePart(t, "rest"));
