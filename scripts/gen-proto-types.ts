// Generates TypeScript types for every proto message and service into src/gen, or with
// --check verifies that the committed copy is current.

import "./help-first.ts";
import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";

const root = join(import.meta.dirname, "..");
const protoDir = join(root, "proto");
const target = join(root, "src", "gen");
const check = process.argv.includes("--check");

function protoFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return protoFiles(path);
    return name.endsWith(".proto") ? [relative(protoDir, path)] : [];
  });
}

function generate(outDir: string): void {
  execFileSync(
    join(root, "node_modules", ".bin", "proto-loader-gen-types"),
    [
      "--keepCase",
      "--longs=String",
      "--enums=String",
      "--defaults",
      "--oneofs",
      "--grpcLib=@grpc/grpc-js",
      "--includeDirs",
      protoDir,
      "--outDir",
      outDir,
      ...protoFiles(protoDir).sort(),
    ],
    { stdio: "inherit" },
  );
  // The generator writes each proto's absolute path into a comment; keep output independent
  // of where the checkout lives.
  for (const [file, text] of tree(outDir)) {
    writeFileSync(join(outDir, file), text.replaceAll(`${root}/`, ""));
  }
}

function tree(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (d: string) => {
    for (const name of readdirSync(d)) {
      const path = join(d, name);
      if (statSync(path).isDirectory()) walk(path);
      else out.set(relative(dir, path), readFileSync(path, "utf8"));
    }
  };
  walk(dir);
  return out;
}

if (check) {
  const tmp = mkdtempSync(join(tmpdir(), "nova-gen-"));
  try {
    generate(tmp);
    const fresh = tree(tmp);
    const committed = tree(target);
    const stale = [...new Set([...fresh.keys(), ...committed.keys()])].filter(
      (f) => fresh.get(f) !== committed.get(f),
    );
    if (stale.length > 0) {
      console.error(`src/gen is stale (${stale.join(", ")}): run npm run gen and commit`);
      process.exit(1);
    }
    console.log("src/gen is current");
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
} else {
  rmSync(target, { recursive: true, force: true });
  generate(target);
}
