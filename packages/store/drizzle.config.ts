import { defineConfig } from "drizzle-kit";

// Generate migrations with `npx drizzle-kit generate` from packages/store; they are committed in ./drizzle
// and applied on open by src/migrate.ts.
export default defineConfig({
  dialect: "sqlite",
  schema: "./src/schema.ts",
  out: "./drizzle",
  casing: "snake_case",
});
