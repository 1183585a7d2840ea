import { defineConfig } from "vitest/config";

// One vitest project per package; `npx vitest run --project store` runs one.
export default defineConfig({
  test: {
    projects: ["packages/*", "apps/server", "apps/worker", "apps/dashboard", "test"],
  },
});
