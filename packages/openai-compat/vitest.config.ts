import { defineProject } from "vitest/config";
import { sourceConditions } from "../../vitest.source-conditions.ts";

export default defineProject({
  ...sourceConditions,
  test: {
    name: "openai-compat",
    include: ["src/**/*.test.ts"],
  },
});
