import { defineProject } from "vitest/config";

export default defineProject({
  test: {
    name: "e2e",
    include: ["**/*.test.ts"],
    exclude: ["**/node_modules/**", "artifacts/**"],
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});
