import { defineProject } from "vitest/config";
import { processTestFiles } from "../vitest.parallelism.ts";
import { sourceConditions } from "../vitest.source-conditions.ts";

export default defineProject({
  ...sourceConditions,
  test: {
    name: "e2e",
    maxWorkers: processTestFiles,
    // Files share their worker's module cache: each file loaded the whole server stack afresh (305 s of the
    // root project's time in one CI run). Every file starts and closes its own servers, data dirs and key
    // prefixes, and no module of the stack keeps per-test state at load time (metrics registries, tracing
    // and the data-dir lock are per instance or undone on close).
    isolate: false,
    include: ["**/*.test.ts"],
    exclude: ["**/node_modules/**", "artifacts/**"],
    // Hang guards, not speed goals (every wait here is on an event): work of 10–20 s on an idle machine takes
    // several times that with the cores shared (a CPU hog beside the suite, other suites), and a 30 s guard
    // failed tests that were only slow.
    testTimeout: 120_000,
    hookTimeout: 120_000,
  },
});
