import { defineProject } from "vitest/config";
import { sourceConditions } from "../../vitest.source-conditions.ts";

export default defineProject({
  ...sourceConditions,
  test: {
    name: "worker",
    include: ["src/**/*.test.ts"],
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});
