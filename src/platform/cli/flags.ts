// One declarative flag parser for the star, the gateway and the object store CLIs:
// --name value, --name=value, --bool/--no-bool, repeated or comma-separated lists;
// a flag beats its environment variable, which beats the default.

interface Common {
  help: string;
  /** Environment variable; default: the program's prefix + the name in UPPER_SNAKE. */
  env?: string;
}
export type FlagSpec =
  | (Common & {
      type: "string";
      default?: string;
      required?: boolean;
      /** The only values taken, when the flag names a choice. */
      oneOf?: readonly string[];
      check?: Check;
    })
  | (Common & { type: "int"; default?: number; min?: number; max?: number; required?: boolean })
  | (Common & { type: "bool"; default?: boolean })
  | (Common & { type: "list"; default?: readonly string[]; required?: boolean; check?: Check });

/** What is wrong with a value (a list's: each entry), or undefined when it is taken. */
export type Check = (value: string) => string | undefined;

export type FlagSpecs = Record<string, FlagSpec>;

/** "data-dir" -> "dataDir" */
type Camel<S extends string> = S extends `${infer H}-${infer T}`
  ? `${H}${Capitalize<Camel<T>>}`
  : S;
type Always<F, T> = F extends { default: unknown } | { required: true } ? T : T | undefined;
type ValueOf<F extends FlagSpec> = F extends { type: "bool" }
  ? boolean
  : F extends { type: "list" }
    ? string[]
    : F extends { type: "int" }
      ? Always<F, number>
      : Always<F, string>;

/** Parsed values, keyed by the camel-cased flag name. */
export type FlagValues<S extends FlagSpecs> = {
  [K in keyof S & string as Camel<K>]: ValueOf<S[K]>;
};

export class FlagError extends Error {
  override readonly name = "FlagError";

  /** The flag as written on the command line, e.g. "--port". */
  readonly flag: string;

  constructor(flag: string, message: string) {
    super(message);
    this.flag = flag;
  }
}

/** One flag as --help and docs/configuration.md show it. */
export interface FlagDoc {
  /** "--port <int>", or "--[no-]name" for a boolean. */
  usage: string;
  help: string;
  /** What a value must be, e.g. "an integer from 0 to 65535". */
  accepts: string;
  repeatable: boolean;
  required: boolean;
  /** The default as it would be written: a list comma-separated, "" as '""', none as "none". */
  default: string;
  env: string;
}

export interface FlagParser<S extends FlagSpecs> {
  readonly specs: S;
  /** Throws FlagError for anything it cannot take. */
  parse(argv: readonly string[], env: NodeJS.ProcessEnv): FlagValues<S>;
  /** Every flag, in definition order. */
  describe(): FlagDoc[];
  helpText(program: string, summary: string): string;
}

const NAME = /^[a-z][a-z0-9]*(-[a-z0-9]+)*$/;

/** pino's levels, for a --log-level flag. */
export const LOG_LEVELS = ["fatal", "error", "warn", "info", "debug", "trace", "silent"] as const;

export function envName(flag: string, prefix = "NOVA_"): string {
  return prefix + flag.toUpperCase().replaceAll("-", "_");
}

export function wantsHelp(argv: readonly string[]): boolean {
  return argv.includes("--help") || argv.includes("-h");
}

function camel(name: string): string {
  return name.replace(/-([a-z0-9])/g, (_, c: string) => c.toUpperCase());
}

function expected(spec: FlagSpec): string {
  switch (spec.type) {
    case "string":
      return spec.oneOf ? `one of ${spec.oneOf.join(", ")}` : "a value";
    case "list":
      return "a value or a comma-separated list";
    case "bool":
      return "true or false";
    case "int": {
      const { min, max } = spec;
      if (min !== undefined && max !== undefined) return `an integer from ${min} to ${max}`;
      if (min !== undefined) return `an integer >= ${min}`;
      if (max !== undefined) return `an integer <= ${max}`;
      return "an integer";
    }
  }
}

const TRUE = new Set(["true", "1", "yes", "on"]);
const FALSE = new Set(["false", "0", "no", "off"]);

/** One raw string as the flag's type; `source` names where it came from in the message. */
function convert(spec: FlagSpec, raw: string, flag: string, source: string): unknown {
  const bad = () => new FlagError(flag, `${source}: expected ${expected(spec)}, got "${raw}"`);
  const checked = (value: string) => {
    const problem =
      spec.type === "string" || spec.type === "list" ? spec.check?.(value) : undefined;
    if (problem !== undefined) {
      throw new FlagError(flag, `${source}: ${JSON.stringify(value)} ${problem}`);
    }
    return value;
  };
  switch (spec.type) {
    case "string":
      // An empty value is a variable left unset (`--host=$HOST`), not a choice: --host= would
      // listen on every address, --tls-key= serve cleartext.
      if (raw === "" || (spec.oneOf && !spec.oneOf.includes(raw))) throw bad();
      return checked(raw);
    case "list":
      return raw
        .split(",")
        .map((s) => s.trim())
        .filter((s) => s !== "")
        .map(checked);
    case "bool": {
      const v = raw.toLowerCase();
      if (TRUE.has(v)) return true;
      if (FALSE.has(v)) return false;
      throw bad();
    }
    case "int": {
      if (!/^[+-]?\d+$/.test(raw)) throw bad();
      const n = Number(raw);
      const { min, max } = spec;
      if (
        !Number.isSafeInteger(n) ||
        (min !== undefined && n < min) ||
        (max !== undefined && n > max)
      ) {
        throw bad();
      }
      return n;
    }
  }
}

/** The longest delay Node's timers take: a longer one fires after 1 ms instead. */
const TIMER_MAX_MS = 2_147_483_647;
/** The largest size in MiB: its bytes, even four times over, stay exact integers. */
const SIZE_MAX_MIB = 2 ** 30;

/**
 * A time in ms (a name ending in -ms) or seconds (-s) is at most what a timer can wait: an
 * operator's "a very long time" must not become "at once". A size in MiB (-mb) is at most
 * SIZE_MAX_MIB: past it, byte counts would round.
 */
function withImplicitBound(name: string, spec: FlagSpec): FlagSpec {
  if (spec.type !== "int" || spec.max !== undefined) return spec;
  if (name.endsWith("-ms")) return { ...spec, max: TIMER_MAX_MS };
  if (name.endsWith("-s")) return { ...spec, max: Math.floor(TIMER_MAX_MS / 1000) };
  if (name.endsWith("-mb")) return { ...spec, max: SIZE_MAX_MIB };
  return spec;
}

export function defineFlags<const S extends FlagSpecs>(
  given: S,
  opts: { envPrefix?: string } = {},
): FlagParser<S> {
  const specs = Object.fromEntries(
    Object.entries(given).map(([name, spec]) => [name, withImplicitBound(name, spec)]),
  ) as S;
  const entries = Object.entries(specs);
  for (const [name] of entries) {
    if (!NAME.test(name) || name === "help" || name.startsWith("no-")) {
      throw new Error(`bad flag name "${name}": lower-case words joined by "-", not help or no-*`);
    }
  }
  const envOf = (name: string, spec: FlagSpec) => spec.env ?? envName(name, opts.envPrefix);

  const parse = (argv: readonly string[], env: NodeJS.ProcessEnv): FlagValues<S> => {
    const given = new Map<string, string[]>();
    for (let i = 0; i < argv.length; i++) {
      const arg = argv[i] ?? "";
      if (!arg.startsWith("--") || arg === "--") {
        throw new FlagError(arg, `unexpected argument "${arg}": every argument is a --flag`);
      }
      const eq = arg.indexOf("=");
      const written = eq === -1 ? arg : arg.slice(0, eq);
      const inline = eq === -1 ? undefined : arg.slice(eq + 1);
      let name = written.slice(2);
      let negated = false;
      if (
        !Object.hasOwn(specs, name) &&
        name.startsWith("no-") &&
        specs[name.slice(3)]?.type === "bool"
      ) {
        name = name.slice(3);
        negated = true;
      }
      const spec = Object.hasOwn(specs, name) ? specs[name] : undefined;
      if (spec === undefined) throw new FlagError(written, `unknown flag ${written} (see --help)`);
      let raw: string;
      if (spec.type === "bool") {
        if (negated && inline !== undefined) {
          throw new FlagError(written, `${written} takes no value; use --${name}=${inline}`);
        }
        raw = negated ? "false" : (inline ?? "true");
      } else if (inline !== undefined) {
        raw = inline;
      } else {
        const next = argv[i + 1];
        // A value may start with "-" (a negative number) but not with "--": that is the next flag.
        if (next === undefined || next.startsWith("--")) {
          throw new FlagError(written, `${written} needs a value: expected ${expected(spec)}`);
        }
        raw = next;
        i++;
      }
      const seen = given.get(name);
      if (seen && spec.type !== "list") {
        throw new FlagError(`--${name}`, `--${name} is given more than once`);
      }
      given.set(name, [...(seen ?? []), raw]);
    }

    const values: Record<string, unknown> = {};
    for (const [name, spec] of entries) {
      const flag = `--${name}`;
      const envVar = envOf(name, spec);
      const fromArgs = given.get(name);
      const fromEnv = env[envVar];
      let value: unknown;
      if (fromArgs) {
        const converted = fromArgs.map((raw) => convert(spec, raw, flag, flag));
        value = spec.type === "list" ? (converted as string[][]).flat() : converted[0];
      } else if (fromEnv !== undefined && fromEnv !== "") {
        value = convert(spec, fromEnv, flag, `${envVar} (for ${flag})`);
      } else if (spec.default !== undefined) {
        value = spec.type === "list" ? [...spec.default] : spec.default;
      } else {
        value = spec.type === "bool" ? false : spec.type === "list" ? [] : undefined;
      }
      const missing = value === undefined || (Array.isArray(value) && value.length === 0);
      if (spec.type !== "bool" && spec.required && missing) {
        throw new FlagError(
          flag,
          `missing required flag ${flag}: expected ${expected(spec)} (or set ${envVar})`,
        );
      }
      values[camel(name)] = value;
    }
    return values as FlagValues<S>;
  };

  const describe = (): FlagDoc[] =>
    entries.map(([name, spec]) => {
      let shown = spec.type === "bool" ? "false" : "none";
      if (spec.default !== undefined) {
        shown = Array.isArray(spec.default) ? spec.default.join(",") : String(spec.default);
        if (shown === "") shown = '""';
      }
      return {
        usage: spec.type === "bool" ? `--[no-]${name}` : `--${name} <${spec.type}>`,
        help: spec.help,
        accepts: expected(spec),
        repeatable: spec.type === "list",
        required: spec.type !== "bool" && spec.required === true,
        default: shown,
        env: envOf(name, spec),
      };
    });

  const helpText = (program: string, summary: string): string => {
    const rows: [string, string][] = describe().map((flag) => {
      const notes: string[] = [];
      if (flag.repeatable) notes.push("repeatable, or comma-separated");
      notes.push(flag.required ? "required" : `default: ${flag.default}`);
      notes.push(`env: ${flag.env}`);
      return [flag.usage, `${flag.help} (${notes.join("; ")})`];
    });
    rows.push(["-h, --help", "Show this help and exit."]);
    const width = Math.max(...rows.map(([usage]) => usage.length)) + 2;
    const lines = rows.map(([usage, text]) => `  ${usage.padEnd(width)}${text}`);
    return `Usage: ${program} [flags]\n\n${summary}\n\nFlags:\n${lines.join("\n")}\n`;
  };

  return { specs, parse, describe, helpText };
}

/**
 * `argv`, already parsed, without the flag `--name` and its value (`--name V` or `--name=V`), so
 * that a process started with the rest takes that flag from its environment instead.
 */
export function argsWithout(argv: readonly string[], name: string): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (arg === `--${name}`) i++;
    else if (!arg.startsWith(`--${name}=`)) out.push(arg);
  }
  return out;
}

/**
 * For a program's main: the parsed flags, or the help on stdout and exit 0 when asked,
 * or the problem on stderr and exit 2.
 */
export function parseProcessFlags<S extends FlagSpecs>(
  parser: FlagParser<S>,
  program: string,
  summary: string,
): FlagValues<S> {
  const argv = process.argv.slice(2);
  if (wantsHelp(argv)) {
    process.stdout.write(parser.helpText(program, summary));
    process.exit(0);
  }
  try {
    return parser.parse(argv, process.env);
  } catch (err) {
    if (!(err instanceof FlagError)) throw err;
    process.stderr.write(`${program}: ${err.message}\n`);
    process.exit(2);
  }
}
