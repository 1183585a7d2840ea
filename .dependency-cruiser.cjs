// The architecture of shared/DESIGN.md §1 as rules, so drift fails `npm run lint`.
// Arrows point inward: apps → packages → protocol / compaction. Each rule says what it forbids and why.
// Workspace packages resolve through their node_modules link (preserveSymlinks), so `pkg("queue")`
// matches an import of @longrun/queue from outside it and a file inside packages/queue alike.
const TESTS =
  "(\\.test\\.tsx?|\\.test-helper\\.tsx?|/__fixtures__/|/contract/|/vitest\\.config\\.ts)$|/__fixtures__/|/contract/";
const IO_MODULES = "^(node:)?(fs|net|http|https|child_process|worker_threads|dgram|tls|cluster)(/|$)";

/** A regex for the files of the named workspace packages, however they are reached. */
const pkg = (...names) => `(^|/)node_modules/@longrun/(${names.join("|")})/|^packages/(${names.join("|")})/`;
/** The same for apps. */
const app = (...names) => `(^|/)node_modules/@longrun/(${names.join("|")})/|^apps/(${names.join("|")})/`;

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: "no-value-circles",
      severity: "error",
      comment:
        "A value-level import circle: modules that need each other to load. Type-only imports may loop.",
      from: {},
      to: {
        circular: true,
        viaOnly: { dependencyTypesNot: ["type-only"] },
        dependencyTypesNot: ["type-only"],
      },
    },
    {
      name: "declared-dependencies-only",
      severity: "error",
      comment:
        "A workspace imports only what its package.json (or the root's, for shared tooling) declares, workspace packages included.",
      from: {},
      to: { dependencyTypes: ["npm-no-pkg", "npm-unknown"] },
    },
    {
      name: "production-imports-no-dev-dependency",
      severity: "error",
      comment: "Production code runs without dev dependencies installed.",
      from: { path: "^(apps|packages)/[^/]+/src/", pathNot: TESTS },
      to: { dependencyTypes: ["npm-dev"], dependencyTypesNot: ["type-only"] },
    },
    {
      name: "unresolvable",
      severity: "error",
      comment: "An import that resolves to nothing fails at run time.",
      from: {},
      to: { couldNotResolve: true },
    },
    {
      name: "packages-import-no-app",
      severity: "error",
      comment:
        "Apps are thin shells over packages; a package never reaches back into an app. The CLI is the composition root that starts them.",
      from: { path: "^packages/", pathNot: "^packages/cli/" },
      to: { path: app("server", "worker", "dashboard") },
    },
    {
      name: "apps-import-no-app",
      severity: "error",
      comment: "Apps share code through packages, never through each other.",
      from: { path: "^apps/(server)/" },
      to: { path: app("worker", "dashboard") },
    },
    {
      name: "apps-import-no-cli",
      severity: "error",
      comment: "The CLI starts the apps; an app (or its tests) importing the CLI makes a cycle of packages.",
      from: { path: "^apps/" },
      to: { path: pkg("cli") },
    },
    {
      name: "pure-core",
      severity: "error",
      comment: "protocol and compaction do no I/O: clock, tokenizer and summarizer are passed in.",
      from: { path: "^packages/(protocol|compaction)/src/", pathNot: TESTS },
      to: {
        path: [
          IO_MODULES,
          pkg("store", "runtime", "queue", "cli", "client", "openai-compat", "sim-model", "testing"),
          "(^|/)node_modules/(bullmq|ioredis|@libsql|libsql|drizzle-orm|openai|hono|ws)/",
        ],
      },
    },
    {
      name: "sim-model-is-independent",
      severity: "error",
      comment:
        "The sim model judges what runtime and compaction send; it must not share their code or mistakes.",
      from: { path: "^packages/sim-model/" },
      to: { path: pkg("compaction", "runtime", "openai-compat", "store", "queue") },
    },
    {
      name: "clients-import-no-server",
      severity: "error",
      comment:
        "The dashboard and the SDK talk HTTP and WebSocket; they never import the server, store or runtime.",
      from: { path: "^(apps/dashboard|packages/client)/" },
      to: {
        path: [app("server", "worker"), pkg("store", "runtime", "queue", "compaction", "openai-compat")],
      },
    },
    {
      name: "store-imports-no-runtime",
      severity: "error",
      comment: "The store is below the runtime and the queue.",
      from: { path: "^packages/store/" },
      to: { path: pkg("runtime", "queue", "compaction", "openai-compat") },
    },
    {
      name: "queue-imports-no-runtime",
      severity: "error",
      comment: "The job lifecycle knows jobs, not what they do: the runtime binds its handlers to it.",
      from: { path: "^packages/queue/" },
      to: { path: pkg("runtime", "store", "compaction", "openai-compat") },
    },
    {
      name: "production-imports-no-test-double",
      severity: "error",
      comment:
        "Production code never imports the test fixtures or the sim model; only the CLI starts the sim (embedded mode, `longrun sim`).",
      from: { path: "^(apps|packages)/[^/]+/src/", pathNot: [TESTS, "^packages/(cli|testing|sim-model)/"] },
      to: { path: pkg("testing", "sim-model") },
    },
    {
      name: "public-surface-only",
      severity: "error",
      comment:
        "Other workspaces import a package through an entry its package.json exports, never an internal path: the index, or one of the light entries exported for the CLI's configuration (which every command reads, so it must not load the runtime or the queue).",
      from: {},
      to: {
        path: "(^|/)node_modules/@longrun/[^/]+/",
        pathNot: [
          "(^|/)node_modules/@longrun/[^/]+/src/index\\.tsx?$",
          "(^|/)node_modules/@longrun/runtime/src/fair-share/tenant-limits\\.ts$",
          "(^|/)node_modules/@longrun/queue/src/lease\\.ts$",
        ],
      },
    },
    {
      name: "tests-only-in-tests",
      severity: "error",
      comment: "Production code never imports a test file or test helper.",
      from: { path: "^(apps|packages)/[^/]+/src/", pathNot: TESTS },
      to: { path: "\\.test\\.tsx?$|\\.test-helper\\.tsx?$|/__fixtures__/" },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    exclude: { path: "(^|/)(dist|\\.turbo|\\.longrun)/|^test/(artifacts|bench/results)/" },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.base.json" },
    combinedDependencies: true,
    preserveSymlinks: true,
    enhancedResolveOptions: {
      exportsFields: ["exports"],
      conditionNames: ["@longrun/source", "import", "types", "default", "node"],
      extensions: [".ts", ".tsx", ".js", ".mjs", ".cjs", ".json", ".d.ts"],
      mainFields: ["module", "main", "types"],
    },
    skipAnalysisNotInRules: true,
  },
};
