import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import { hostPort, httpUrl } from "./addresses.ts";
import { argsWithout, defineFlags, envName, FlagError, wantsHelp } from "./flags.ts";

const flags = defineFlags(
  {
    port: { type: "int", default: 4568, min: 0, max: 65535, help: "Port to listen on." },
    "data-dir": { type: "string", required: true, help: "Where the data lives." },
    host: { type: "string", help: "Address to bind." },
    verbose: { type: "bool", help: "Log every request." },
    bucket: { type: "list", default: ["nova"], help: "Buckets to create." },
    tag: { type: "list", help: "Tags." },
    offset: { type: "int", help: "An offset, maybe negative." },
    token: { type: "string", env: "MY_TOKEN", help: "A token." },
    level: { type: "string", default: "info", oneOf: ["info", "warn"], help: "A choice." },
  },
  { envPrefix: "NOVA_TEST_" },
);
const base = ["--data-dir", "/d"];

/** The FlagError thrown by parse, for asserting on its flag and message. */
function flagError(argv: string[], env: NodeJS.ProcessEnv = {}): FlagError {
  try {
    flags.parse(argv, env);
  } catch (err) {
    if (err instanceof FlagError) return err;
    throw err;
  }
  assert.fail(`parse(${JSON.stringify(argv)}) did not throw`);
}

test("defaults apply when neither a flag nor the environment says otherwise", () => {
  const v = flags.parse(base, {});
  assert.deepEqual(v, {
    port: 4568,
    dataDir: "/d",
    host: undefined,
    verbose: false,
    bucket: ["nova"],
    tag: [],
    offset: undefined,
    token: undefined,
    level: "info",
  });
});

test("the result type follows the spec", () => {
  const v = flags.parse(base, {});
  const port: number = v.port;
  const dataDir: string = v.dataDir;
  const verbose: boolean = v.verbose;
  const buckets: string[] = v.bucket;
  const host: string | undefined = v.host;
  // @ts-expect-error a string flag without default or required may be absent
  const sure: string = v.host;
  // @ts-expect-error names are camel-cased
  v["data-dir"];
  assert.deepEqual(
    [port, dataDir, verbose, buckets, host, sure],
    [4568, "/d", false, ["nova"], undefined, undefined],
  );
});

test("values come as --flag value or --flag=value", () => {
  assert.equal(flags.parse([...base, "--port", "80"], {}).port, 80);
  assert.equal(flags.parse([...base, "--port=81"], {}).port, 81);
  assert.equal(flags.parse(["--data-dir=/x=y"], {}).dataDir, "/x=y");
  assert.equal(flags.parse([...base, "--offset", "-5"], {}).offset, -5);
  assert.equal(flags.parse([...base, "--host", "-h-"], {}).host, "-h-");
});

test("booleans: --flag, --no-flag and --flag=value", () => {
  assert.equal(flags.parse([...base, "--verbose"], {}).verbose, true);
  assert.equal(flags.parse([...base, "--no-verbose"], { NOVA_TEST_VERBOSE: "1" }).verbose, false);
  assert.equal(flags.parse([...base, "--verbose=false"], {}).verbose, false);
  assert.equal(flags.parse([...base, "--verbose=YES"], {}).verbose, true);
  assert.match(
    flagError([...base, "--verbose=maybe"]).message,
    /--verbose: expected true or false, got "maybe"/,
  );
  assert.match(flagError([...base, "--no-verbose=true"]).message, /--no-verbose takes no value/);
  // A boolean never takes the next argument as its value.
  assert.match(flagError([...base, "--verbose", "true"]).message, /unexpected argument "true"/);
});

test("lists: repeated, comma-separated, or both; trimmed, without empty items", () => {
  assert.deepEqual(flags.parse([...base, "--bucket", "a", "--bucket", "b"], {}).bucket, ["a", "b"]);
  assert.deepEqual(flags.parse([...base, "--bucket", "a,b", "--bucket=c"], {}).bucket, [
    "a",
    "b",
    "c",
  ]);
  assert.deepEqual(flags.parse([...base, "--bucket", " a , ,b,"], {}).bucket, ["a", "b"]);
  assert.deepEqual(flags.parse([...base, "--bucket="], {}).bucket, []);
  assert.deepEqual(flags.parse(base, { NOVA_TEST_TAG: "x, y" }).tag, ["x", "y"]);
});

test("a flag beats the environment, which beats the default", () => {
  const env = {
    NOVA_TEST_PORT: "1000",
    NOVA_TEST_DATA_DIR: "/env",
    NOVA_TEST_BUCKET: "e1,e2",
    NOVA_TEST_VERBOSE: "true",
  };
  assert.deepEqual(flags.parse([], env), {
    ...flags.parse(base, {}),
    port: 1000,
    dataDir: "/env",
    bucket: ["e1", "e2"],
    verbose: true,
  });
  const v = flags.parse(["--port=2", "--data-dir=/f", "--bucket=f", "--no-verbose"], env);
  assert.deepEqual([v.port, v.dataDir, v.bucket, v.verbose], [2, "/f", ["f"], false]);
  // An empty variable counts as unset.
  assert.equal(flags.parse(base, { NOVA_TEST_PORT: "" }).port, 4568);
});

test("environment names: prefix + UPPER_SNAKE unless given", () => {
  assert.equal(envName("data-dir"), "NOVA_DATA_DIR");
  assert.equal(envName("data-dir", "NOVA_OBJSTORE_"), "NOVA_OBJSTORE_DATA_DIR");
  assert.equal(flags.parse(base, { MY_TOKEN: "t", NOVA_TEST_TOKEN: "no" }).token, "t");
  const unprefixed = defineFlags({ "data-dir": { type: "string", help: "d" } });
  assert.equal(unprefixed.parse([], { NOVA_DATA_DIR: "/n" }).dataDir, "/n");
});

test("a bad environment value names the variable and the flag", () => {
  const err = flagError(base, { NOVA_TEST_PORT: "eighty" });
  assert.equal(err.flag, "--port");
  assert.equal(
    err.message,
    'NOVA_TEST_PORT (for --port): expected an integer from 0 to 65535, got "eighty"',
  );
  assert.match(
    flagError(base, { NOVA_TEST_VERBOSE: "2" }).message,
    /NOVA_TEST_VERBOSE \(for --verbose\)/,
  );
});

test("integers must be whole, safe and in range", () => {
  for (const bad of ["abc", "1.5", "12abc", "0x10", "", "1e3", "65536", "-1", "9007199254740993"]) {
    const err = flagError([...base, `--port=${bad}`]);
    assert.equal(err.flag, "--port");
    assert.equal(err.message, `--port: expected an integer from 0 to 65535, got "${bad}"`);
  }
  assert.match(flagError([...base, "--offset=1.0"]).message, /--offset: expected an integer, got/);
  assert.equal(flags.parse([...base, "--port=+007"], {}).port, 7);
});

test("a time in ms or s is at most what a timer can wait, unless the flag sets its own bound", () => {
  const times = defineFlags({
    "grace-ms": { type: "int", min: 0, help: "A wait." },
    "max-wait-s": { type: "int", min: 0, help: "A wait in seconds." },
    "tiny-ms": { type: "int", max: 10, help: "A bounded wait." },
    count: { type: "int", help: "Not a time." },
  });
  const parsed = times.parse(["--grace-ms=2147483647", "--max-wait-s=2147483"], {});
  assert.deepEqual([parsed.graceMs, parsed.maxWaitS], [2147483647, 2147483]);
  assert.throws(
    () => times.parse(["--grace-ms=2147483648"], {}),
    /--grace-ms: expected an integer from 0 to 2147483647, got "2147483648"/,
  );
  assert.throws(() => times.parse(["--max-wait-s=2147484"], {}), /from 0 to 2147483,/);
  assert.throws(() => times.parse(["--tiny-ms=11"], {}), /an integer <= 10,/);
  assert.equal(times.parse(["--count=9007199254740991"], {}).count, 9007199254740991);
  assert.deepEqual(
    times.describe().map((flag) => flag.accepts),
    [
      "an integer from 0 to 2147483647",
      "an integer from 0 to 2147483",
      "an integer <= 10",
      "an integer",
    ],
  );
});

test("a size in MiB is at most 2^30, whose bytes stay exact", () => {
  const sizes = defineFlags({ "cache-mb": { type: "int", min: 0, help: "A size." } });
  assert.equal(sizes.parse(["--cache-mb=1073741824"], {}).cacheMb, 2 ** 30);
  assert.throws(
    () => sizes.parse(["--cache-mb=1073741825"], {}),
    /--cache-mb: expected an integer from 0 to 1073741824, got "1073741825"/,
  );
});

test("an empty string value is refused; an empty variable is unset", () => {
  const err = flagError([...base, "--host="]);
  assert.deepEqual([err.flag, err.message], ["--host", '--host: expected a value, got ""']);
  assert.equal(flagError(["--data-dir", ""]).flag, "--data-dir");
  assert.equal(flags.parse(base, { NOVA_TEST_HOST: "" }).host, undefined);
});

test("a checked value, or each entry of a checked list, is refused with the check's reason", () => {
  const checked = defineFlags({
    peers: { type: "list", check: hostPort, help: "Peers." },
    endpoint: { type: "string", check: httpUrl, help: "A URL." },
  });
  assert.deepEqual(checked.parse(["--peers=a:1,b:2"], {}).peers, ["a:1", "b:2"]);
  assert.throws(
    () => checked.parse(["--peers=b:2,a:0"], {}),
    (err: unknown) =>
      err instanceof FlagError &&
      err.flag === "--peers" &&
      err.message === '--peers: "a:0" is not HOST:PORT with a port from 1 to 65535',
  );
  assert.throws(
    () => checked.parse([], { NOVA_PEERS: "x" }),
    /^FlagError: NOVA_PEERS \(for --peers\): "x" is not HOST:PORT/,
  );
  assert.equal(checked.parse(["--endpoint=http://s3:9000"], {}).endpoint, "http://s3:9000");
  assert.throws(
    () => checked.parse(["--endpoint=s3:9000"], {}),
    /--endpoint: "s3:9000" is not an http:\/\/ or https:\/\/ URL/,
  );
});

test("a choice takes only its values, from a flag or the environment", () => {
  assert.equal(flags.parse([...base, "--level=warn"], {}).level, "warn");
  assert.equal(
    flagError([...base, "--level", "verbose"]).message,
    '--level: expected one of info, warn, got "verbose"',
  );
  assert.match(flagError(base, { NOVA_TEST_LEVEL: "Warn" }).message, /one of info, warn/);
});

test("unknown flags, missing values, strays and repeats are errors naming the flag", () => {
  const unknown = flagError([...base, "--prot", "80"]);
  assert.equal(unknown.flag, "--prot");
  assert.match(unknown.message, /unknown flag --prot/);
  assert.match(flagError([...base, "--no-host"]).message, /unknown flag --no-host/);

  const atEnd = flagError([...base, "--port"]);
  assert.equal(atEnd.flag, "--port");
  assert.equal(atEnd.message, "--port needs a value: expected an integer from 0 to 65535");
  assert.match(flagError(["--data-dir", "--port=1"]).message, /--data-dir needs a value/);

  assert.match(flagError([...base, "stray"]).message, /unexpected argument "stray"/);
  assert.match(flagError([...base, "-p"]).message, /unexpected argument "-p"/);
  assert.match(flagError([...base, "--"]).message, /unexpected argument "--"/);
  assert.match(
    flagError([...base, "--port=1", "--port=2"]).message,
    /--port is given more than once/,
  );
  assert.match(
    flagError([...base, "--verbose", "--no-verbose"]).message,
    /--verbose is given more than once/,
  );
});

test("a missing required flag says which flag and which variable", () => {
  const err = flagError([]);
  assert.equal(err.flag, "--data-dir");
  assert.equal(
    err.message,
    "missing required flag --data-dir: expected a value (or set NOVA_TEST_DATA_DIR)",
  );
  const needsList = defineFlags({ peer: { type: "list", required: true, help: "p" } });
  assert.throws(() => needsList.parse(["--peer="], {}), /missing required flag --peer/);
  assert.deepEqual(needsList.parse(["--peer=a"], {}).peer, ["a"]);
});

test("help is asked with --help or -h", () => {
  assert.equal(wantsHelp(["--port", "1", "--help"]), true);
  assert.equal(wantsHelp(["-h"]), true);
  assert.equal(wantsHelp(["--port", "1"]), false);
});

test("help text lists every flag with its type, default or requirement, and variable", () => {
  const text = flags.helpText("objstore", "Runs the thing.");
  assert.match(text, /^Usage: objstore \[flags\]\n\nRuns the thing\.\n\nFlags:\n/);
  assert.match(text, /--port <int> +Port to listen on\. \(default: 4568; env: NOVA_TEST_PORT\)/);
  assert.match(
    text,
    /--data-dir <string> +Where the data lives\. \(required; env: NOVA_TEST_DATA_DIR\)/,
  );
  assert.match(text, /--host <string> +Address to bind\. \(default: none; env: NOVA_TEST_HOST\)/);
  assert.match(
    text,
    /--\[no-\]verbose +Log every request\. \(default: false; env: NOVA_TEST_VERBOSE\)/,
  );
  assert.match(
    text,
    /--bucket <list> +Buckets to create\. \(repeatable, or comma-separated; default: nova;/,
  );
  assert.match(text, /--token <string> .*env: MY_TOKEN\)/);
  assert.match(text, /-h, --help +Show this help and exit\./);
});

test("flag names are checked when defined", () => {
  for (const name of ["Port", "data_dir", "help", "no-color", "-x", "a--b", ""]) {
    assert.throws(
      () => defineFlags({ [name]: { type: "bool", help: "x" } }),
      /bad flag name/,
      name,
    );
  }
});

test("any safe integer round-trips through --x=N, --x N and the environment", () => {
  const ints = defineFlags({ x: { type: "int", help: "x" } });
  fc.assert(
    fc.property(fc.maxSafeInteger(), (n) => {
      assert.equal(ints.parse([`--x=${n}`], {}).x, n);
      assert.equal(ints.parse(["--x", String(n)], {}).x, n);
      assert.equal(ints.parse([], { NOVA_X: String(n) }).x, n);
    }),
  );
});

test("describe() gives each flag as help and the generated docs show it", () => {
  const byUsage = new Map(flags.describe().map((flag) => [flag.usage, flag]));
  assert.deepEqual(byUsage.get("--port <int>"), {
    usage: "--port <int>",
    help: "Port to listen on.",
    accepts: "an integer from 0 to 65535",
    repeatable: false,
    required: false,
    default: "4568",
    env: "NOVA_TEST_PORT",
  });
  assert.equal(byUsage.get("--data-dir <string>")?.required, true);
  assert.equal(byUsage.get("--host <string>")?.default, "none");
  assert.equal(byUsage.get("--[no-]verbose")?.default, "false");
  assert.deepEqual(
    [byUsage.get("--bucket <list>")?.repeatable, byUsage.get("--bucket <list>")?.default],
    [true, "nova"],
  );
  assert.equal(byUsage.get("--token <string>")?.env, "MY_TOKEN");
  assert.equal(byUsage.size, Object.keys(flags.specs).length);
});

test("argsWithout drops a flag in either form, and its value comes from the environment", () => {
  const argv = ["--port", "0", "--data-dir", "/d", "--host", "h"];
  assert.deepEqual(argsWithout(argv, "port"), ["--data-dir", "/d", "--host", "h"]);
  const kept = argsWithout(["--data-dir", "/d", "--port=0", "--verbose"], "port");
  assert.equal(flags.parse(kept, { NOVA_TEST_PORT: "8123" }).port, 8123);
  assert.deepEqual(argsWithout(base, "port"), base);
});
