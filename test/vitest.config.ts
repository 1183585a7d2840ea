import { defineProject } from "vitest/config";
import { processTestFiles } from "../vitest.parallelism.ts";
import { sourceConditions } from "../vitest.source-conditions.ts";

export default defineProject({
  ...sourceConditions,
  test: {
    name: "e2e",
    maxWorkers: processTestFiles,
    include: ["**/*.test.ts"],
    exclude: ["**/node_modules/**", "artifacts/**"],
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});
