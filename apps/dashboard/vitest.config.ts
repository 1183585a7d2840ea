import { defineProject } from "vitest/config";
import { sourceConditions } from "../../vitest.source-conditions.ts";

export default defineProject({
  ...sourceConditions,
  test: {
    name: "dashboard",
    include: ["src/**/*.test.ts"],
    environment: "node",
  },
});
