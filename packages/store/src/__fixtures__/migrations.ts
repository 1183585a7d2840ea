import { readFileSync } from "node:fs";
import { join } from "node:path";
import { MIGRATIONS_FOLDER } from "../migrate.ts";

/** How many migrations the committed drizzle journal lists (each is recorded once when applied). */
export const MIGRATION_COUNT = (
  JSON.parse(readFileSync(join(MIGRATIONS_FOLDER, "meta/_journal.json"), "utf8")) as { entries: unknown[] }
).entries.length;
