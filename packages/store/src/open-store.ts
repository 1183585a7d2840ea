import { dirname, resolve } from "node:path";
import type { NewMessage } from "@longrun/protocol";
import { type AgentStateRepository, createAgentStateRepository } from "./agent-state.ts";
import { type AgentRepository, createAgentRepository } from "./agents.ts";
import { type ApiKeyRepository, createApiKeyRepository } from "./api-keys.ts";
import { type ApprovalRuleRepository, createApprovalRuleRepository } from "./approval-rules.ts";
import { type ApprovalRepository, createApprovalRepository } from "./approvals.ts";
import { type CompactionRepository, createCompactionRepository } from "./compactions.ts";
import { Connection, type Database, resolveLocation } from "./connection.ts";
import { createContext, estimateTokens } from "./context.ts";
import { createEventRepository, type EventRepository } from "./events.ts";
import { createFileSnapshotRepository, type FileSnapshotRepository } from "./file-snapshots.ts";
import { createMessageRepository, type MessageRepository } from "./messages.ts";
import { runMigrations } from "./migrate.ts";
import { createPreparedSummaryRepository, type PreparedSummaryRepository } from "./prepared-summaries.ts";
import { createRunRepository, type RunRepository } from "./runs.ts";
import { createStorageHealth } from "./storage-health.ts";
import { createThreadRepository, type ThreadRepository } from "./threads.ts";
import { createToolRunRepository, type ToolRunRepository } from "./tool-runs.ts";
import type { UnitOfWork } from "./unit-of-work.ts";
import { acquireWriteQueue, releaseWriteQueue } from "./write-queue.ts";

export interface StoreOptions {
  /** A file path, a `file:` URL, `:memory:`, or a remote `libsql://` / `https://` URL. */
  url: string;
  authToken?: string;
  /**
   * The folder the process keeps its files in (LONGRUN_DATA_DIR): watched with the database's own
   * folder, which must stay the ones the process started with.
   */
  dataDir?: string;
  /** Token estimate stored per message on append; default ceil(chars / 3.5). */
  countTokens?: (message: NewMessage) => number;
}

/** The libSQL log and everything stored beside it. */
export interface Store {
  /** The URL the client was opened with (`file:/abs/path` for local files). */
  readonly url: string;
  /** Absolute path of a local database file, null otherwise. */
  readonly file: string | null;
  readonly threads: ThreadRepository;
  readonly agents: AgentRepository;
  readonly messages: MessageRepository;
  readonly compactions: CompactionRepository;
  readonly runs: RunRepository;
  readonly events: EventRepository;
  readonly agentState: AgentStateRepository;
  readonly preparedSummaries: PreparedSummaryRepository;
  readonly apiKeys: ApiKeyRepository;
  readonly toolRuns: ToolRunRepository;
  readonly approvals: ApprovalRepository;
  readonly approvalRules: ApprovalRuleRepository;
  /** Content-addressed snapshots of the files the agents' tools changed (issue 37). */
  readonly fileSnapshots: FileSnapshotRepository;
  /**
   * One write transaction: facts and the events that describe them commit together. Events returned
   * by `unit.appendEvents` are persisted but not published: the caller publishes after commit.
   */
  transact<T>(work: (unit: UnitOfWork) => Promise<T>): Promise<T>;
  /** The current drizzle instance, for queries the repositories do not cover (may change after a reopen). */
  readonly db: Database;
  /** Resolves when the database answers a query (readiness). */
  ping(): Promise<void>;
  /**
   * Readiness of the storage, bounded (under a second): null when the data folder is the one the
   * process started with and the database takes a small write, else what is wrong.
   */
  storageProblem(): Promise<string | null>;
  close(): Promise<void>;
}

/** Opens (creating and migrating if needed) a store. */
export async function openStore(options: StoreOptions): Promise<Store> {
  const location = resolveLocation(options.url);
  const connection = await Connection.open(location, options.authToken);
  try {
    await runMigrations(connection);
  } catch (error) {
    connection.close();
    throw error;
  }
  const queue = acquireWriteQueue(location.key);
  const health = createStorageHealth({
    dirs: [
      ...(options.dataDir ? [resolve(options.dataDir)] : []),
      ...(location.file ? [dirname(location.file)] : []),
    ],
    file: location.file,
    // Unguarded, behind the other writers: rewriting user_version with its own value is a real write.
    probeWrite: () =>
      queue.run(async () => {
        const version = Number(
          (await connection.engine.reader.execute({ sql: "PRAGMA user_version" })).rows[0]?.user_version ?? 0,
        );
        await connection.engine.write({ sql: `PRAGMA user_version = ${Math.trunc(version)}` });
      }),
  });
  const context = createContext(connection, queue, options.countTokens ?? estimateTokens, health);
  let closed = false;
  return {
    url: location.url,
    file: location.file,
    threads: createThreadRepository(context),
    agents: createAgentRepository(context),
    messages: createMessageRepository(context),
    compactions: createCompactionRepository(context),
    runs: createRunRepository(context),
    events: createEventRepository(context),
    agentState: createAgentStateRepository(context),
    preparedSummaries: createPreparedSummaryRepository(context),
    apiKeys: createApiKeyRepository(context),
    toolRuns: createToolRunRepository(context),
    approvals: createApprovalRepository(context),
    approvalRules: createApprovalRuleRepository(context),
    fileSnapshots: createFileSnapshotRepository(context),
    transact: (work) => context.transact(work),
    get db() {
      return connection.db;
    },
    async ping() {
      await context.read((db) => db.run("SELECT 1"));
    },
    storageProblem: () => health.check(),
    async close() {
      if (closed) return;
      closed = true;
      // Let writes already queued finish, so a close never drops an acknowledged append.
      await queue.run(async () => {});
      connection.close();
      releaseWriteQueue(location.key);
    },
  };
}
