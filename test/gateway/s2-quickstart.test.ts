// S2's SDK quick start, as its README gives it, run unchanged against `npm start`'s entry (an
// embedded star): only S2's environment variables point it at the gateway.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { test } from "node:test";
import { promisify } from "node:util";
import ts from "typescript";
import { request } from "undici";
import { embeddedGateway } from "../harness/gateway-process.ts";
import { tempDir } from "../harness/tmp.ts";

const root = join(import.meta.dirname, "..", "..");
const run = promisify(execFile);

/** The README's quick-start snippet, verbatim. */
async function quickStart(): Promise<string> {
  const readme = await readFile(join(root, "node_modules/@s2-dev/streamstore/README.md"), "utf8");
  const m = /<!-- snippet:start quick-start -->\n```ts\n([\s\S]*?)```/.exec(readme);
  assert.ok(m, "the SDK's README has its quick-start snippet");
  return m[1] as string;
}

test("S2's SDK quick start runs unchanged against the gateway", async (t) => {
  const data = await tempDir(t);
  // Inside the checkout (its tmp/ is ignored by git), so the snippet's import resolves.
  await mkdir(join(root, "tmp"), { recursive: true });
  const scratch = await mkdtemp(join(root, "tmp", "s2-quickstart-"));
  t.after(() => rm(scratch, { recursive: true, force: true }));
  // Compiled as a TypeScript user's build would (its type-only import, AppendAck, is elided).
  const compiled = ts.transpileModule(await quickStart(), {
    compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
  });
  const script = join(scratch, "quick-start.mjs");
  await writeFile(script, compiled.outputText);

  const { url, proc: gw } = await embeddedGateway(data);
  try {
    // The snippet expects its basin to exist.
    const basin = "quick-start-basin";
    const created = await request(`${url}/v1/basins`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ basin }),
    });
    assert.equal(created.statusCode, 201, await created.body.text());
    const { stdout } = await run(process.execPath, [script], {
      env: {
        ...process.env,
        S2_ACCOUNT_ENDPOINT: url,
        S2_BASIN_ENDPOINT: url,
        S2_ACCESS_TOKEN: "any-token",
        S2_BASIN: basin,
        S2_STREAM: "quick-start-stream",
      },
    });
    assert.match(stdout, /Appended records 0 through 2 \(exclusive\)\./);
    assert.match(stdout, /decoded body: Hello from the docs snippet!/);
    assert.match(stdout, /decoded body: Bytes payload/);
  } finally {
    const exit = await gw.kill("SIGTERM");
    assert.equal(exit.code, 0);
  }
});
