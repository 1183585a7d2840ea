// drizzle-kit only generates migrations, so the repository's npm install leaves it out: after changing
// src/schema.ts, `npm run migrations:generate` (from packages/store) installs it into tools/drizzle-kit
// from that folder's lockfile and runs `drizzle-kit generate`. The migrations are committed in ./drizzle
// and applied on open by src/migrate.ts.
export default {
  dialect: "sqlite",
  schema: "./src/schema.ts",
  out: "./drizzle",
  casing: "snake_case",
};
