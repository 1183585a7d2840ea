import { mkdirSync } from "node:fs";
import { dirname, isAbsolute, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { type Client, createClient } from "@libsql/client";
import { drizzle, type LibSQLDatabase } from "drizzle-orm/libsql";
import { retryBusy } from "./busy-retry.ts";
import { schema } from "./schema.ts";
import { createClientEngine, createNativeEngine, type SqlEngine } from "./sql-engine.ts";

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
/** Attempts to configure a new connection while other processes hold the file (about 10 s of backoff). */
const OPEN_ATTEMPTS = 15;

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
  #engine: SqlEngine | null = null;
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

  /** Raw SQL: native prepared statements for a local file, the async client otherwise. */
  get engine(): SqlEngine {
    if (this.#engine) return this.#engine;
    this.#engine =
      this.location.file !== null
        ? createNativeEngine(this.location.file, BUSY_TIMEOUT_MS)
        : createClientEngine({ writer: () => this.#client, reader: () => this.#readClient });
    return this.#engine;
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
    try {
      // Switching a file to WAL needs an exclusive lock and SQLite does not wait for it (the busy
      // timeout is not consulted): while another process writes, the PRAGMA fails at once. Retry it
      // like any other busy error, on a fresh connection.
      await retryBusy(() => connection.#configure(true), {
        attempts: OPEN_ATTEMPTS,
        onRetry: () => connection.#reconnect(),
      });
    } catch (error) {
      connection.close();
      throw error;
    }
    return connection;
  }

  /** Fresh clients for both roles (a failed open starts over). */
  async #reconnect(): Promise<void> {
    this.#client.close();
    if (this.#readClient !== this.#client) this.#readClient.close();
    this.#client = this.#createClient();
    this.#db = drizzle(this.#client, { schema });
    this.#readClient = this.#isLocal() ? this.#createClient() : this.#client;
    this.#readDb = this.#isLocal() ? drizzle(this.#readClient, { schema }) : this.#db;
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
    this.#engine?.close();
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
    // journal_mode is persistent in the file: switch it only when it is not WAL yet (the switch needs
    // an exclusive lock; reading the mode needs none).
    if (first) {
      const mode = await this.#client.execute("PRAGMA journal_mode");
      if (String(mode.rows[0]?.journal_mode ?? "").toLowerCase() !== "wal") {
        await this.#client.execute("PRAGMA journal_mode = WAL");
      }
    }
    await this.#client.execute("PRAGMA synchronous = NORMAL");
  }
}
