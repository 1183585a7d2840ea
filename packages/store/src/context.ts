import type { Client } from "@libsql/client";
import type { NewMessage } from "@longrun/protocol";
import { retryBusy } from "./busy-retry.ts";
import type { Connection, Database } from "./connection.ts";
import type { SqlExecutor, SqlResult, SqlStatement } from "./sql-engine.ts";
import type { StorageHealth } from "./storage-health.ts";
import { createUnitOfWork, type UnitOfWork } from "./unit-of-work.ts";
import type { WriteQueue } from "./write-queue.ts";

/** A drizzle transaction on the store's schema. */
export type Transaction = Parameters<Parameters<Database["transaction"]>[0]>[0];

/** What every repository receives: reads, serialized write transactions, and the token counter. */
export interface StoreContext {
  /** Runs a read on the current connection, retrying on busy/closed with a fresh one. */
  read<T>(task: (db: Database) => Promise<T>): Promise<T>;
  /** Runs `task` inside `BEGIN IMMEDIATE`, queued behind this process's other writers, retried on busy. */
  write<T>(task: (tx: Transaction) => Promise<T>): Promise<T>;
  /** Like `write`, in raw SQL on prepared statements: the hot paths skip drizzle's query building. */
  writeRaw<T>(task: (tx: SqlExecutor) => Promise<T>): Promise<T>;
  /** One write statement on its own, queued behind this process's other writers. */
  writeOne(statement: SqlStatement): Promise<SqlResult>;
  /** A read in raw SQL on prepared statements (the read connection). */
  readRaw<T>(task: (reader: SqlExecutor) => Promise<T>): Promise<T>;
  /** One write transaction over the typed write operations (facts and their events together). */
  transact<T>(work: (unit: UnitOfWork) => Promise<T>): Promise<T>;
  countTokens(message: NewMessage): number;
  now(): number;
}

const MAX_ATTEMPTS = 8;

/** Builds the context over one connection and its process-wide write queue. */
export function createContext(
  connection: Connection,
  queue: WriteQueue,
  countTokens: (message: NewMessage) => number,
  health: StorageHealth,
): StoreContext {
  /** Every access passes the storage guard first, and a storage fault comes back as storage_unavailable. */
  const guarded = async <T>(task: () => Promise<T>): Promise<T> => {
    await health.guard();
    try {
      return await task();
    } catch (error) {
      throw health.failure(error);
    }
  };
  /** Runs `task` on the current client, retrying busy/closed errors on a fresh one. */
  const retrying =
    (current: () => Client, reopen: (failed: Client) => Promise<void>) =>
    <T>(task: () => Promise<T>): Promise<T> => {
      let client = current();
      return retryBusy(
        () => {
          client = current();
          return task();
        },
        { attempts: MAX_ATTEMPTS, stop: () => connection.closed, onRetry: () => reopen(client) },
      );
    };
  const attempt = retrying(
    () => connection.client,
    (failed) => connection.reopen(failed),
  );
  // Raw SQL runs on the engine (native prepared statements for a local file): a busy error reopens it.
  const rawAttempt = <T>(task: () => Promise<T>): Promise<T> =>
    retryBusy(task, {
      attempts: MAX_ATTEMPTS,
      stop: () => connection.closed,
      onRetry: async () => connection.engine.reopen(),
    });
  const readAttempt = retrying(
    () => connection.readClient,
    (failed) => connection.reopenReader(failed),
  );
  const context: StoreContext = {
    read: (task) => guarded(() => readAttempt(() => task(connection.readDb))),
    // drizzle's libsql session opens `client.transaction()` whose default mode is "write" (BEGIN IMMEDIATE).
    write: (task) => queue.run(() => guarded(() => attempt(() => connection.db.transaction(task)))),
    writeRaw: (task) => queue.run(() => guarded(() => rawAttempt(() => connection.engine.transaction(task)))),
    writeOne: (statement) =>
      queue.run(() => guarded(() => rawAttempt(() => connection.engine.write(statement)))),
    readRaw: (task) => guarded(() => rawAttempt(() => task(connection.engine.reader))),
    transact: (work) => context.writeRaw((tx) => work(createUnitOfWork(tx, context))),
    countTokens,
    now: () => Date.now(),
  };
  return context;
}

/** A flat charge per image: counting a base64 data URL as text would overstate it a hundredfold. */
const IMAGE_TOKENS = 765;

/** Default estimate: ceil(characters / 3.5) over content text, tool call names and arguments. */
export function estimateTokens(message: NewMessage): number {
  let chars = 0;
  let images = 0;
  const content = message.content;
  if (typeof content === "string") chars += content.length;
  else if (Array.isArray(content)) {
    for (const part of content) {
      if (part.type === "text") chars += part.text.length;
      else images += 1;
    }
  }
  for (const call of message.toolCalls ?? [])
    chars += call.function.name.length + call.function.arguments.length;
  return Math.ceil(chars / 3.5) + images * IMAGE_TOKENS;
}
