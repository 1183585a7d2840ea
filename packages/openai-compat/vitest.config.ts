import { defineProject } from "vitest/config";

export default defineProject({
  test: {
    name: "openai-compat",
    include: ["src/**/*.test.ts"],
  },
});
