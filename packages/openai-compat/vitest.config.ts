import { defineProject } from "vitest/config";
import { packageTestFiles } from "../../vitest.parallelism.ts";
import { sourceConditions } from "../../vitest.source-conditions.ts";

export default defineProject({
  ...sourceConditions,
  test: {
    name: "openai-compat",
    maxWorkers: packageTestFiles,
    include: ["src/**/*.test.ts"],
  },
});
