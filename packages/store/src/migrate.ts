import { fileURLToPath } from "node:url";
import { migrate } from "drizzle-orm/libsql/migrator";
import { retryBusy } from "./busy-retry.ts";
import type { Connection } from "./connection.ts";

/** The committed drizzle-kit output, resolved from this file so it works from any working directory. */
export const MIGRATIONS_FOLDER = fileURLToPath(new URL("../drizzle", import.meta.url));

const MAX_ATTEMPTS = 10;

function isAlreadyExists(error: unknown): boolean {
  for (let current: unknown = error, depth = 0; current && depth < 5; depth += 1) {
    if (typeof current !== "object") break;
    const record = current as { message?: unknown; cause?: unknown };
    if (typeof record.message === "string" && /already exists/i.test(record.message)) return true;
    current = record.cause;
  }
  return false;
}

/**
 * Applies pending migrations. Two processes opening a new file at once both see "nothing applied";
 * one wins, the other fails on busy or "table already exists" and, retried on a fresh connection,
 * finds the migration recorded and does nothing.
 */
export async function runMigrations(connection: Connection): Promise<void> {
  await retryBusy(() => migrate(connection.db, { migrationsFolder: MIGRATIONS_FOLDER }), {
    attempts: MAX_ATTEMPTS,
    alsoRetry: isAlreadyExists,
    onRetry: () => connection.reopen(),
  });
}
