// Every test process of `npm test` loads this first (scripts/test.ts): its stdout, where
// node:test reports each result to the run, blocks on every write. node:test's forceExit ends a
// process with process.exit(), which drops what the pipe had not yet taken (nodejs/node#64833):
// the results of a file's last tests, or of a shared process's last files, were lost, silently.
// Plain JavaScript, loaded before any TypeScript.
for (const stream of [process.stdout, process.stderr]) stream._handle?.setBlocking?.(true);
