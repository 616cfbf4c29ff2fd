// The build's second step (`npm run build`): tsgo compiles src/ into dist/ but copies no other
// file, so the console's static files (src/gateway/console/assets/) are copied beside the code
// that serves them, at the same place relative to it.
import "./help-first.ts";
import { cpSync, rmSync } from "node:fs";
import { join } from "node:path";

const root = join(import.meta.dirname, "..");
const from = join(root, "src", "gateway", "console", "assets");
const to = join(root, "dist", "gateway", "console", "assets");
rmSync(to, { recursive: true, force: true });
cpSync(from, to, { recursive: true });
