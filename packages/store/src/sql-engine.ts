import type { Client, Row } from "@libsql/client";
import Database from "libsql";
import { LRUCache } from "lru-cache";

/** A statement with positional arguments (the only form the store's raw SQL uses). */
export interface SqlStatement {
  sql: string;
  args?: ReadonlyArray<string | number | bigint | null | Uint8Array>;
}

/** What a raw statement returns: rows (objects keyed by column) and, for writes, rows changed. */
export interface SqlResult {
  rows: Row[];
  rowsAffected: number;
}

/** Something that runs raw SQL: a transaction, or the read connection. */
export interface SqlExecutor {
  execute(statement: SqlStatement): Promise<SqlResult>;
}

/**
 * The raw-SQL side of a store: write transactions (BEGIN IMMEDIATE … COMMIT) and reads. For a local
 * file it is the native libSQL connection with every statement prepared once and reused — the
 * async client prepares each statement anew and costs ~0.8 ms per small transaction here against
 * ~0.1 ms for the same two statements prepared once (measured on this machine). Remote databases go
 * through the async client.
 */
export interface SqlEngine {
  transaction<T>(work: (tx: SqlExecutor) => Promise<T>): Promise<T>;
  /** One write statement on its own (SQLite's implicit transaction: no BEGIN/COMMIT round trips). */
  write(statement: SqlStatement): Promise<SqlResult>;
  readonly reader: SqlExecutor;
  /** A fresh connection after a failure (a busy connection may keep a stale snapshot). */
  reopen(): void;
  close(): void;
}

/** Prepared statements per connection, bounded (dynamic SQL such as multi-row inserts varies). */
class StatementCache {
  readonly #statements: LRUCache<string, Database.Statement>;
  constructor(
    private readonly db: Database.Database,
    limit = 500,
  ) {
    this.#statements = new LRUCache({ max: limit });
  }

  get(sql: string): Database.Statement {
    let statement = this.#statements.get(sql);
    if (!statement) {
      statement = this.db.prepare(sql);
      this.#statements.set(sql, statement);
    }
    return statement;
  }
}

/** Runs one statement on a native connection, the way @libsql/client's execute would answer. */
function runNative(cache: StatementCache, statement: SqlStatement): SqlResult {
  const prepared = cache.get(statement.sql);
  const args = (statement.args ?? []) as unknown[];
  if (prepared.reader) return { rows: prepared.all(...args) as Row[], rowsAffected: 0 };
  const info = prepared.run(...args);
  return { rows: [], rowsAffected: info.changes };
}

/** A native connection to a local file, configured like the async client's (busy timeout, WAL, NORMAL). */
function openNative(file: string, busyTimeoutMs: number): { db: Database.Database; cache: StatementCache } {
  const db = new Database(file, { timeout: busyTimeoutMs });
  db.exec(`PRAGMA busy_timeout = ${busyTimeoutMs}`);
  db.exec("PRAGMA synchronous = NORMAL");
  return { db, cache: new StatementCache(db) };
}

/** The engine of a local file: one native connection for writes, one for reads (WAL lets both run). */
export function createNativeEngine(file: string, busyTimeoutMs: number): SqlEngine {
  let writer = openNative(file, busyTimeoutMs);
  let reader = openNative(file, busyTimeoutMs);
  let closed = false;
  return {
    async transaction(work) {
      const { db, cache } = writer;
      cache.get("BEGIN IMMEDIATE").run();
      const tx: SqlExecutor = { execute: async (statement) => runNative(cache, statement) };
      try {
        const result = await work(tx);
        cache.get("COMMIT").run();
        return result;
      } catch (error) {
        if (db.inTransaction) cache.get("ROLLBACK").run();
        throw error;
      }
    },
    async write(statement) {
      return runNative(writer.cache, statement);
    },
    reader: {
      execute: async (statement) => runNative(reader.cache, statement),
    },
    reopen() {
      if (closed) return;
      writer.db.close();
      reader.db.close();
      writer = openNative(file, busyTimeoutMs);
      reader = openNative(file, busyTimeoutMs);
    },
    close() {
      if (closed) return;
      closed = true;
      writer.db.close();
      reader.db.close();
    },
  };
}

/** The engine of a remote database (libsql://, https://): the async client's transactions. */
export function createClientEngine(clients: { writer: () => Client; reader: () => Client }): SqlEngine {
  const through = (client: () => Client): SqlExecutor => ({
    async execute(statement) {
      const result = await client().execute({ sql: statement.sql, args: [...(statement.args ?? [])] });
      return { rows: result.rows, rowsAffected: result.rowsAffected };
    },
  });
  return {
    async transaction(work) {
      const tx = await clients.writer().transaction("write");
      try {
        const result = await work({
          async execute(statement) {
            const answer = await tx.execute({ sql: statement.sql, args: [...(statement.args ?? [])] });
            return { rows: answer.rows, rowsAffected: answer.rowsAffected };
          },
        });
        await tx.commit();
        return result;
      } finally {
        // Rolls back if the work or the commit failed; a no-op after a successful commit.
        tx.close();
      }
    },
    write: (statement) => through(clients.writer).execute(statement),
    reader: through(clients.reader),
    reopen() {},
    close() {},
  };
}
