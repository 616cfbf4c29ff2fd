// The star's and the gateway's command lines: --help, and bad flags refused with a message
// naming the problem and exit code 2, before anything starts.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { test } from "node:test";
import { nodeArgs } from "./harness/process.ts";

function run(entry: string, args: string[], env: Record<string, string> = {}) {
  const [command, argv] = nodeArgs(entry, args);
  const r = spawnSync(command, argv, {
    encoding: "utf8",
    timeout: 60_000,
    env: { ...process.env, ...env },
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

for (const [entry, flag] of [
  ["src/star/main.ts", "--data-dir"],
  ["src/main.ts", "--stars"],
] as const) {
  test(`${entry} --help lists its flags with defaults`, () => {
    const r = run(entry, ["--help"]);
    assert.equal(r.code, 0);
    assert.match(r.stdout, new RegExp(flag));
    assert.match(r.stdout, /--log-level/);
  });

  test(`${entry} refuses an unknown flag`, () => {
    const r = run(entry, ["--bogus"]);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /--bogus/);
  });
}

test("the star refuses a non-integer from the environment, naming the variable", () => {
  const r = run("src/star/main.ts", ["--data-dir", "/nonexistent"], {
    NOVA_SESSION_WINDOW: "many",
  });
  assert.equal(r.code, 2);
  assert.match(r.stderr, /NOVA_SESSION_WINDOW|session-window/);
});

test("the star needs exactly one of --data-dir and --s3-endpoint", () => {
  for (const args of [[], ["--data-dir", "/x", "--s3-endpoint", "http://127.0.0.1:1"]]) {
    const r = run("src/star/main.ts", args);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /exactly one of --data-dir DIR or --s3-endpoint URL/);
  }
});

test("the gateway refuses a --trust-proxy entry that is neither an address nor a CIDR, naming it", () => {
  for (const [value, named] of [
    ["balancer.local", /balancer\.local/],
    ["10.0.0.0/8,10.0.0.0/33", /10\.0\.0\.0\/33/],
  ] as const) {
    const r = run("src/main.ts", ["--trust-proxy", value]);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /^nova-gateway: --trust-proxy: /);
    assert.match(r.stderr, named);
  }
});

test("the gateway takes a keep-alive hint only below its keep-alive timeout", () => {
  const r = run("src/main.ts", ["--keep-alive-hint-s", "60", "--keep-alive-timeout-ms", "60000"]);
  assert.equal(r.code, 2);
  assert.match(
    r.stderr,
    /--keep-alive-hint-s \(60 s\) must be below --keep-alive-timeout-ms \(60000 ms\)/,
  );
});

test("the gateway takes --proxy-protocol only with --trust-proxy", () => {
  const alone = run("src/main.ts", ["--proxy-protocol"]);
  assert.equal(alone.code, 2);
  assert.match(alone.stderr, /--proxy-protocol needs --trust-proxy/);
});

test("the gateway takes --forwarded-header as one of its two headers, and with --trust-proxy only", () => {
  const bad = run("src/main.ts", ["--forwarded-header", "x-real-ip", "--trust-proxy", "10.0.0.1"]);
  assert.equal(bad.code, 2);
  assert.match(
    bad.stderr,
    /--forwarded-header: x-real-ip is not one of x-forwarded-for, forwarded/,
  );
  const alone = run("src/main.ts", ["--forwarded-header", "forwarded"]);
  assert.equal(alone.code, 2);
  assert.match(alone.stderr, /--forwarded-header=forwarded needs --trust-proxy/);
});

test("the gateway takes --tls-cert and --tls-key together, from files it can read", () => {
  const half = run("src/main.ts", ["--tls-cert", "cert.pem"]);
  assert.equal(half.code, 2);
  assert.match(half.stderr, /--tls-cert and --tls-key go together/);
  const missing = run("src/main.ts", [], {
    NOVA_TLS_CERT: "/nonexistent/cert.pem",
    NOVA_TLS_KEY: "/nonexistent/key.pem",
  });
  assert.equal(missing.code, 2);
  assert.match(missing.stderr, /--tls-cert \/nonexistent\/cert\.pem: ENOENT/);
  // An empty key (a variable left unset) would have served cleartext.
  const empty = run("src/main.ts", ["--tls-cert", "cert.pem", "--tls-key="]);
  assert.equal(empty.code, 2);
  assert.match(empty.stderr, /--tls-key: expected a value, got ""/);
});

test("the gateway refuses an empty --host, --stars not HOST:PORT and an --s3-endpoint not a URL", () => {
  for (const [args, message] of [
    [["--host="], /--host: expected a value, got ""/],
    [["--stars=127.0.0.1:99999"], /--stars: "127.0.0.1:99999" is not HOST:PORT/],
    [["--stars=foo"], /--stars: "foo" is not HOST:PORT/],
    [["--s3-endpoint=notaurl"], /--s3-endpoint: "notaurl" is not an http:\/\/ or https:\/\/ URL/],
  ] as const) {
    const r = run("src/main.ts", [...args]);
    assert.equal(r.code, 2, args.join(" "));
    assert.match(r.stderr, message);
  }
});

test("the gateway refuses a port out of range", () => {
  const r = run("src/main.ts", ["--port", "70000"]);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /--port/);
});
