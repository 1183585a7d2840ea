import { defineProject } from "vitest/config";
import { packageTestFiles } from "../../vitest.parallelism.ts";
import { sourceConditions } from "../../vitest.source-conditions.ts";

export default defineProject({
  ...sourceConditions,
  test: {
    name: "sim-model",
    maxWorkers: packageTestFiles,
    include: ["src/**/*.test.ts"],
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});
