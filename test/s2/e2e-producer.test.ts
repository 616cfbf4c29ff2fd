// S2's end-to-end suite (S2-lite profile): its producer's file, alone on an unloaded machine
// (SERIAL in scripts/test.ts; test/s2/e2e-profile.ts says why).
import { test } from "node:test";
import { runProfilePart } from "./e2e-profile.ts";

test("S2's end-to-end suite (S2-lite profile): the producer's file passes", (t) =>
  runProfilePart(t, "producer"));
