import { type ChildProcess, spawn } from "node:child_process";
import { resolve } from "node:path";
import { scriptNodeFlags } from "./node-flags.ts";

export interface StartOptions {
  command: string;
  args: string[];
  /** Added to this process's environment; an undefined value removes the variable. */
  env?: Record<string, string | undefined>;
  cwd?: string;
  /** Resolves startProcess once a stdout line (or a stderr line, with `readyOn`) matches. */
  readyLine: RegExp;
  /** default stdout */
  readyOn?: "stdout" | "stderr";
  /** default 30000 */
  timeoutMs?: number;
}

export interface ExitStatus {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface RunningProcess {
  child: ChildProcess;
  /** The match of readyLine. */
  match: RegExpMatchArray;
  /** The complete stdout lines so far (the last ~1 MB of them). */
  stdoutLines(): string[];
  /** stderr so far (its last ~1 MB). */
  stderr(): string;
  /** Rejects when the process is still running after timeoutMs (default 30000). */
  waitForExit(timeoutMs?: number): Promise<ExitStatus>;
  /**
   * Signals the process group (default SIGTERM), SIGKILLs it when it has not exited after
   * timeoutMs (default 10000), and resolves with how the process ended.
   */
  kill(signal?: NodeJS.Signals, timeoutMs?: number): Promise<ExitStatus>;
}

const KEEP = 1 << 20;

/** Children whose process group may still have members; killed when this process ends. */
const groups = new Set<ChildProcess>();
let hooked = false;

function signalGroup(child: ChildProcess, signal: NodeJS.Signals | 0): boolean {
  if (child.pid === undefined) return false;
  try {
    process.kill(-child.pid, signal);
    return true;
  } catch {
    // ESRCH: the group is gone.
    return false;
  }
}

function killAll(): void {
  for (const child of groups) signalGroup(child, "SIGKILL");
  groups.clear();
}

function hookProcessEnd(): void {
  if (hooked) return;
  hooked = true;
  process.on("exit", killAll);
  // Children run in their own process groups, so a Ctrl-C at the terminal does not reach them.
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    process.once(signal, () => {
      killAll();
      process.kill(process.pid, signal);
    });
  }
}

/**
 * Runs `node entry ...args` on this process's runtime (the project's pinned Node, which strips
 * the types itself), directly, without npm in between, with the Node flags of the package.json
 * script that runs `entry` (node-flags.ts).
 */
export function nodeArgs(entry: string, args: string[]): [string, string[]] {
  return [process.execPath, [...scriptNodeFlags(entry), resolve(entry), ...args]];
}

function withTimeout<T>(promise: Promise<T>, ms: number, what: () => string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(what())), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/**
 * Spawns a command in its own process group and resolves once it prints a line matching
 * readyLine. Rejects, with what the process wrote to stderr, when it exits first or the deadline
 * passes (the process is killed then).
 */
export async function startProcess(opts: StartOptions): Promise<RunningProcess> {
  hookProcessEnd();
  const env: Record<string, string | undefined> = { ...process.env, ...opts.env };
  for (const [name, value] of Object.entries(env)) if (value === undefined) delete env[name];
  const child = spawn(opts.command, opts.args, {
    cwd: opts.cwd,
    env,
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
  });
  groups.add(child);
  const name = `${opts.command} ${opts.args.join(" ")}`;

  const lines: string[] = [];
  let lineChars = 0;
  let partial = "";
  let errText = "";
  let onLine: (line: string) => void = () => {};
  // A child's error-level log line (pino, level 50 and up, on stdout or stderr) goes to the
  // test's stderr at once: a failing test in CI then shows what went wrong inside the star or
  // gateway.
  const echoErrors = (line: string): void => {
    if (/^\{"level":(?:[5-9]\d|\d{3,})\b/.test(line)) {
      process.stderr.write(`[pid ${child.pid}] ${line}\n`);
    }
  };
  const pushLine = (line: string): void => {
    echoErrors(line);
    lines.push(line);
    lineChars += line.length;
    while (lineChars > KEEP && lines.length > 1) lineChars -= lines.shift()?.length ?? 0;
    if (opts.readyOn !== "stderr") onLine(line);
  };
  child.stdout?.setEncoding("utf8");
  child.stdout?.on("data", (chunk: string) => {
    const parts = (partial + chunk).split("\n");
    partial = parts.pop() ?? "";
    for (const line of parts) pushLine(line.endsWith("\r") ? line.slice(0, -1) : line);
  });
  child.stdout?.on("end", () => {
    if (partial !== "") pushLine(partial);
    partial = "";
  });
  child.stderr?.setEncoding("utf8");
  let errPartial = "";
  child.stderr?.on("data", (chunk: string) => {
    const parts = (errPartial + chunk).split("\n");
    errPartial = parts.pop() ?? "";
    for (const line of parts) {
      echoErrors(line);
      if (opts.readyOn === "stderr") onLine(line);
    }
    errText += chunk;
    if (errText.length > 2 * KEEP) errText = errText.slice(-KEEP);
  });

  // 'close' comes after the exit and the end of stdout and stderr, so nothing printed is missed.
  const closed = new Promise<ExitStatus>((resolveClosed) => {
    child.once("close", (code, signal) => {
      if (!signalGroup(child, 0)) groups.delete(child);
      resolveClosed({ code, signal });
    });
  });
  let exited: ExitStatus | undefined;
  void closed.then((status) => {
    exited = status;
  });

  const kill = async (signal: NodeJS.Signals = "SIGTERM", timeoutMs = 10_000) => {
    if (!exited) {
      signalGroup(child, signal);
      const status = await withTimeout(closed, timeoutMs, () => "").catch(() => undefined);
      if (!status) {
        signalGroup(child, "SIGKILL");
        await withTimeout(closed, 10_000, () => `${name} survived SIGKILL`);
      }
    }
    // The leader is gone; its descendants go too.
    signalGroup(child, "SIGKILL");
    groups.delete(child);
    return closed;
  };

  const tail = (): string => {
    const out = lines.slice(-20).join("\n");
    return `\n--- stderr ---\n${errText.slice(-8192)}\n--- stdout (last lines) ---\n${out}`;
  };

  const ready = new Promise<RegExpMatchArray>((resolveReady, rejectReady) => {
    onLine = (line) => {
      const match = line.match(opts.readyLine);
      if (match) {
        onLine = () => {};
        resolveReady(match);
      }
    };
    child.once("error", (err) => rejectReady(new Error(`${name} failed to start: ${err.message}`)));
    void closed.then(({ code, signal }) =>
      rejectReady(
        new Error(
          `${name} exited (code ${code}, signal ${signal}) before printing a line matching ${opts.readyLine}${tail()}`,
        ),
      ),
    );
  });
  const timeoutMs = opts.timeoutMs ?? 30_000;
  let match: RegExpMatchArray;
  try {
    match = await withTimeout(
      ready,
      timeoutMs,
      () => `${name} printed no line matching ${opts.readyLine} within ${timeoutMs} ms${tail()}`,
    );
  } catch (err) {
    await kill("SIGKILL");
    throw err;
  }

  return {
    child,
    match,
    stdoutLines: () => [...lines],
    stderr: () => errText.slice(-KEEP),
    waitForExit: (ms = 30_000) =>
      withTimeout(closed, ms, () => `${name} still running after ${ms} ms${tail()}`),
    kill,
  };
}
