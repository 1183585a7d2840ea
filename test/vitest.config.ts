import { defineProject } from "vitest/config";
import { processTestFiles } from "../vitest.parallelism.ts";
import { sourceConditions } from "../vitest.source-conditions.ts";

export default defineProject({
  ...sourceConditions,
  test: {
    name: "e2e",
    maxWorkers: processTestFiles,
    // Not `isolate: false` yet (files sharing their worker's module cache: summed import 89 s instead of
    // 669 s in one full run each): in its three full runs, all at load 30–55, fork-workspace's two long writer
    // runs never finished (30 s and 120 s guards); the file passes alone, after other files, and in a 12-file
    // mix with it at low load. The cause is not found.
    include: ["**/*.test.ts"],
    exclude: ["**/node_modules/**", "artifacts/**"],
    // Hang guards, not speed goals (every wait here is on an event): work of 10–20 s on an idle machine takes
    // several times that with the cores shared (a CPU hog beside the suite, other suites), and a 30 s guard
    // failed tests that were only slow.
    testTimeout: 120_000,
    hookTimeout: 120_000,
    // The same for `expect.poll` without its own timeout (vitest's default is 1 s: a wall-clock budget, which
    // a DOM update or a log line misses on a loaded machine). A poll that never holds still fails here.
    expect: { poll: { timeout: 60_000 } },
  },
});
