// There is no Docker engine here, so this does what the Dockerfile does, read from the file: its
// build (`npm run build`, TypeScript's native compiler into dist/), then its ENTRYPOINT with its ENV, and its HEALTHCHECK,
// as the image would: the pinned Node, no TypeScript loader, the ready line, /livez, and a start
// without deprecation warnings.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { promisify } from "node:util";
import { request } from "undici";
import { freePort } from "../harness/ports.ts";
import { startProcess } from "../harness/process.ts";
import { tempDir } from "../harness/tmp.ts";
import { waitFor } from "../harness/wait.ts";

const run = promisify(execFile);
const root = join(import.meta.dirname, "..", "..");
const dockerfile = readFileSync(join(root, "Dockerfile"), "utf8").replace(/\\\n\s*/g, " ");
const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
const pinnedNode = pkg.devDependencies.node as string;

/** The JSON-array form of an instruction, e.g. ENTRYPOINT ["node", "src/main.ts"]. */
function execForm(instruction: string): string[] {
  const line = dockerfile.match(new RegExp(`^${instruction} (\\[.*\\])$`, "m"));
  assert.ok(line?.[1], `the Dockerfile has an exec-form ${instruction}`);
  return JSON.parse(line[1]) as string[];
}

/** The final stage's ENV, as KEY=VALUE pairs on one (joined) line. */
function imageEnv(): Record<string, string> {
  const lines = [...dockerfile.matchAll(/^ENV (.*)$/gm)].map((m) => m[1] as string);
  const last = lines.at(-1);
  assert.ok(last, "the Dockerfile sets ENV");
  return Object.fromEntries([...last.matchAll(/(\w+)=(\S+)/g)].map((m) => [m[1], m[2]]));
}

/** `node` in the image is the pinned runtime; here that is the one running this test. */
function onPinnedNode(argv: string[]): [string, string[]] {
  const [program, ...args] = argv;
  assert.equal(program, "node");
  return [process.execPath, args];
}

test("the image's Node is the pinned runtime", () => {
  assert.match(
    dockerfile,
    new RegExp(`^ARG NODE_VERSION=${pinnedNode.replaceAll(".", "\\.")}$`, "m"),
  );
  assert.equal(process.versions.node, pinnedNode);
});

/**
 * The image's build step, as package.json's build script runs it: tsgo with tsconfig.build.json,
 * then the console's static files copied beside the code.
 */
async function build(): Promise<void> {
  assert.match(dockerfile, /^RUN npm run build$/m);
  assert.equal(pkg.scripts.build, "tsgo -p tsconfig.build.json && node scripts/copy-assets.ts");
  const tsgo = join(root, "node_modules", "@typescript", "native-preview", "bin", "tsgo");
  await run(process.execPath, [tsgo, "-p", "tsconfig.build.json"], { cwd: root });
  await run(process.execPath, [join(root, "scripts", "copy-assets.ts")], { cwd: root });
}

test("the Dockerfile's entry starts with no TypeScript loader, logs Node 24, and is healthy", async (t) => {
  const entry = execForm("ENTRYPOINT");
  assert.doesNotMatch(entry.join(" "), /\.ts\b|tsx|ts-node|--import|--loader|--require/);
  await build();
  const env = imageEnv();
  assert.equal(env.NODE_ENV, "production");
  // Only what a container provides differently: its port and its volume.
  const port = await freePort();
  const dataDir = await tempDir(t);
  const containerEnv = { ...env, NOVA_PORT: String(port), NOVA_DATA_DIR: dataDir };
  const [command, args] = onPinnedNode(entry);
  const gw = await startProcess({
    command,
    args,
    cwd: root,
    env: containerEnv,
    readyLine: /^nova-gateway listening on (http:\/\/\S+)$/,
  });
  try {
    const livez = await request(`http://127.0.0.1:${port}/livez`);
    assert.equal(livez.statusCode, 200, await livez.body.text());
    // The console is in the image: its page and the module it loads.
    for (const [path, type] of [
      ["/", "text/html"],
      ["/console/console.js", "application/javascript"],
    ] as const) {
      const res = await request(`http://127.0.0.1:${port}${path}`);
      assert.equal(res.statusCode, 200, `${path}: ${await res.body.text()}`);
      assert.ok(String(res.headers["content-type"]).startsWith(type), path);
    }
    // The HEALTHCHECK's command, in the container's environment, exits 0.
    const [hcCommand, hcArgs] = onPinnedNode(execForm("HEALTHCHECK .* CMD"));
    await run(hcCommand, hcArgs, { env: { ...process.env, ...containerEnv }, timeout: 10_000 });
  } finally {
    // A container stop: /readyz fails at once and the gateway serves through the default drain
    // delay (10 s), then exits 0; a second stop (SIGINT here) hurries the drain once seen.
    const exit = gw.kill("SIGTERM", 60_000);
    await waitFor(
      async () => {
        const ready = await request(`http://127.0.0.1:${port}/readyz`);
        await ready.body.dump();
        return ready.statusCode === 503;
      },
      { message: "/readyz to fail once the container is stopped" },
    );
    const serving = await request(`http://127.0.0.1:${port}/livez`);
    assert.equal(serving.statusCode, 200, await serving.body.text());
    void gw.kill("SIGINT");
    assert.equal((await exit).code, 0);
  }
  const stderr = gw.stderr();
  assert.match(stderr, new RegExp(`"node":"v${pinnedNode.replaceAll(".", "\\.")}"`));
  assert.doesNotMatch(stderr, /DeprecationWarning|ExperimentalWarning|NodeDeprecationWarning/);
});
