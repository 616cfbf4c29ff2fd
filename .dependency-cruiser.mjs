// The boundaries of the tree, checked by `npm run boundaries` (part of `npm test`): two programs,
// the gateway and the star, over the code they share (contract/: the wire and storage formats;
// platform/: object storage, memory, flags), with src/main.ts as the one place that composes
// them (a gateway with an embedded star). Imports run one way; a violation names its rule.
const programs = "^src/(gateway|star)/";
const testSupport = "(\\.test|\\.test-helper)\\.ts$";
// Folders used from outside themselves: others import them through their index.ts only.
const faces = [
  "src/gateway",
  "src/star",
  "src/contract/codec",
  "src/contract/proto",
  "src/platform/objstore",
  "src/platform/memory",
  "src/platform/cli",
  "src/platform/concurrency",
  "src/gateway/errors",
  "src/gateway/upstream",
  "src/gateway/history",
  "src/gateway/sessions",
  "src/gateway/sessions/hubs",
  "src/gateway/sessions/ndjson",
  "src/gateway/sessions/sources",
  "src/gateway/sessions/sse",
  "src/gateway/translate",
  "src/gateway/http",
  "src/gateway/routes",
  "src/gateway/console",
  "src/gateway/cluster",
  "src/gateway/s2",
  "src/gateway/s2/s2s",
  "src/gateway/ds",
];

export default {
  forbidden: [
    {
      name: "no-cycles",
      comment: "A file never reaches itself through its imports.",
      severity: "error",
      from: {},
      to: { circular: true },
    },
    {
      name: "gateway-apart-from-star",
      comment: "The gateway talks to stars over gRPC only; it shares contract/ and platform/.",
      severity: "error",
      from: { path: "^src/gateway/" },
      to: { path: "^src/star/" },
    },
    {
      name: "star-apart-from-gateway",
      comment: "The star knows nothing of HTTP or of the gateway.",
      severity: "error",
      from: { path: "^src/star/" },
      to: { path: "^src/gateway/" },
    },
    {
      name: "shared-code-below-the-programs",
      comment: "contract/, platform/ and gen/ are used by both programs and import neither.",
      severity: "error",
      from: { path: "^src/(contract|platform|gen)/" },
      to: { path: `${programs}|^src/main\\.ts$` },
    },
    {
      name: "contract-apart-from-platform",
      comment: "The formats (contract/) need no I/O; platform/ needs no formats.",
      severity: "error",
      from: { path: "^src/contract/" },
      to: { path: "^src/platform/" },
    },
    {
      name: "platform-apart-from-contract",
      comment: "The formats (contract/) need no I/O; platform/ needs no formats.",
      severity: "error",
      from: { path: "^src/platform/" },
      to: { path: "^src/contract/" },
    },
    {
      name: "entries-are-not-imported",
      comment: "A main.ts is a program's entry: it composes, nothing builds on it.",
      severity: "error",
      from: {},
      to: { path: "(^|/)main\\.ts$" },
    },
    {
      name: "no-test-support-in-programs",
      comment: "What runs in production imports no test, test helper or test harness.",
      severity: "error",
      from: { path: "^src/", pathNot: testSupport },
      to: { path: `${testSupport}|^test/` },
    },
    ...faces.map((folder) => ({
      name: `through-the-face-of-${folder.slice(4).replace("/", "-")}`,
      comment: `Outside ${folder}/, its code is imported through ${folder}/index.ts (or settings.ts).`,
      severity: "error",
      from: { path: "^src/", pathNot: [`^${folder}/`, testSupport] },
      // A folder's settings.ts (values only: defaults and choices) is a second face: flags read
      // it without loading the folder.
      to: { path: `^${folder}/`, pathNot: `^${folder}/(index|settings)\\.ts$` },
    })),
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    exclude: { path: "^src/gen/" },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    enhancedResolveOptions: { extensions: [".ts", ".js", ".mjs"] },
  },
};
