import { mkdirSync } from "node:fs";
import { dirname, isAbsolute, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { type Client, createClient } from "@libsql/client";
import { drizzle, type LibSQLDatabase } from "drizzle-orm/libsql";
import { schema } from "./schema.ts";

export type Database = LibSQLDatabase<typeof schema>;

/** Where a store lives, resolved from the `url` option. */
export interface Location {
  /** The URL given to the libSQL client. */
  url: string;
  /** Absolute file path for local databases, null for remote and in-memory ones. */
  file: string | null;
  /** Identifies the database within this process (one write queue per key). */
  key: string;
}

const BUSY_TIMEOUT_MS = 5000;

/** Resolves a file path, `file:` URL or remote URL. */
export function resolveLocation(url: string): Location {
  if (url === ":memory:" || url === "file::memory:") {
    return { url: ":memory:", file: null, key: `memory:${Math.random()}` };
  }
  if (/^(libsql|https?|wss?):/i.test(url)) return { url, file: null, key: url };
  let path: string;
  if (url.startsWith("file:")) {
    path = url.startsWith("file://") ? fileURLToPath(url) : url.slice("file:".length);
  } else {
    path = url;
  }
  const file = isAbsolute(path) ? path : resolve(path);
  return { url: `file:${file}`, file, key: `file:${file}` };
}

/**
 * One libSQL client plus its drizzle wrapper. A client can be replaced by a fresh one: after
 * SQLITE_BUSY a connection may keep a stale snapshot (NOTES.md), so callers reopen rather than retry on it.
 */
export class Connection {
  #client: Client;
  #db: Database;
  // Local files get a second connection for reads: with one connection, a read issued while a write
  // transaction is open fails with TRANSACTION_ACTIVE instead of waiting. WAL lets it read concurrently.
  #readClient: Client;
  #readDb: Database;
  #closed = false;

  private constructor(
    readonly location: Location,
    private readonly authToken: string | undefined,
  ) {
    this.#client = this.#createClient();
    this.#db = drizzle(this.#client, { schema });
    this.#readClient = this.#isLocal() ? this.#createClient() : this.#client;
    this.#readDb = this.#isLocal() ? drizzle(this.#readClient, { schema }) : this.#db;
  }

  #isLocal(): boolean {
    return this.location.file !== null;
  }

  /** The connection reads go to (a separate one for local files). */
  get readDb(): Database {
    return this.#readDb;
  }

  get readClient(): Client {
    return this.#readClient;
  }

  /** Replaces the read connection after a failure on it. */
  async reopenReader(failed?: Client): Promise<void> {
    if (this.#closed || !this.#isLocal() || (failed !== undefined && failed !== this.#readClient)) return;
    this.#readClient.close();
    this.#readClient = this.#createClient();
    this.#readDb = drizzle(this.#readClient, { schema });
    await this.#readClient.execute(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`);
  }

  /** Opens a client (creating the parent folder of a local file) and applies the PRAGMAs. */
  static async open(location: Location, authToken?: string): Promise<Connection> {
    if (location.file) mkdirSync(dirname(location.file), { recursive: true });
    const connection = new Connection(location, authToken);
    await connection.#configure(true);
    return connection;
  }

  get client(): Client {
    return this.#client;
  }

  get db(): Database {
    return this.#db;
  }

  get closed(): boolean {
    return this.#closed;
  }

  /**
   * Replaces the client with a new one (fresh connection, fresh snapshot). With `failed`, only if that
   * client is still the current one, so concurrent failures on one client reopen it once.
   */
  async reopen(failed?: Client): Promise<void> {
    if (this.#closed || (failed !== undefined && failed !== this.#client)) return;
    this.#client.close();
    this.#client = this.#createClient();
    this.#db = drizzle(this.#client, { schema });
    await this.#configure(false);
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#client.close();
    if (this.#readClient !== this.#client) this.#readClient.close();
  }

  #createClient(): Client {
    const local = this.location.file !== null || this.location.url === ":memory:";
    return createClient({
      url: this.location.url,
      ...(this.authToken ? { authToken: this.authToken } : {}),
      // One connection per local client: PRAGMAs are per connection, and write transactions are
      // serialized in-process anyway (write-queue.ts), so a second connection would only help reads.
      ...(local ? { concurrency: 1, timeout: BUSY_TIMEOUT_MS } : {}),
    });
  }

  async #configure(first: boolean): Promise<void> {
    if (this.location.file === null) return;
    await this.#client.execute(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`);
    if (first && this.#readClient !== this.#client) {
      await this.#readClient.execute(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`);
    }
    // journal_mode is persistent in the file; set it once per open, not on every reconnect.
    if (first) await this.#client.execute("PRAGMA journal_mode = WAL");
    await this.#client.execute("PRAGMA synchronous = NORMAL");
  }
}

/** True for errors worth a fresh connection and another attempt: busy/locked database or a closed client. */
export function isRetryableError(error: unknown): boolean {
  for (let current: unknown = error, depth = 0; current && depth < 5; depth += 1) {
    if (typeof current !== "object") break;
    const record = current as { code?: unknown; message?: unknown; cause?: unknown };
    const code = typeof record.code === "string" ? record.code : "";
    const message = typeof record.message === "string" ? record.message : "";
    if (/SQLITE_BUSY|SQLITE_LOCKED|CLIENT_CLOSED/.test(code)) return true;
    if (/database is locked|SQLITE_BUSY|database table is locked/i.test(message)) return true;
    current = record.cause;
  }
  return false;
}
