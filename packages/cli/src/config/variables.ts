import { resolve } from "node:path";
// The modules of these two values, not the packages' indexes: every command reads the configuration,
// and `--help` or a client command should not load the runtime and the queue to do it.
import { DEFAULT_LEASE_MS } from "@longrun/queue/lease";
import { DEFAULT_TENANT_LIMITS, TenantLimitOverrides } from "@longrun/runtime/tenant-limits";
import type { z } from "zod";
import {
  folder,
  folderList,
  integer,
  json,
  nameList,
  oneOf,
  positiveNumber,
  systemTimeZone,
  text,
  timeZone,
  url,
} from "./schemas.ts";

/** The commands that read the environment (`longrun replay` takes flags only). */
export type ConfigCommand = "start" | "serve" | "worker" | "token";

/** One environment variable: its schema, its `Config` field, what it means and who reads it. */
export interface Variable<Key extends string = string, Schema extends z.ZodType = z.ZodType> {
  /** Field of `Config` that holds the parsed value. */
  key: Key;
  /** Parses the raw string; `.default()` for a default, `.optional()` when it may be unset. */
  schema: Schema;
  /** One line for `--help` and the README. */
  description: string;
  /** The commands that read it (listed in their `--help`). */
  commands: readonly ConfigCommand[];
  /** How the default reads in `--help` when it is computed (else taken from the schema). */
  defaultText?: string;
  /** Never printed back (tokens, keys). */
  secret?: boolean;
}

function variable<const Key extends string, Schema extends z.ZodType>(entry: Variable<Key, Schema>) {
  return entry;
}

const SERVING = ["start", "serve"] as const;
const RUNNING = ["start", "serve", "worker"] as const;
const DISTRIBUTED = ["serve", "worker"] as const;
const WITH_DATABASE = ["start", "serve", "worker", "token"] as const;

/**
 * Every variable longrun reads, in `--help` order. Adding one is adding one entry here: the schema,
 * the `Config` type, `--help`, and the compose/k8s checks all follow from this table.
 */
export const VARIABLES = {
  PORT: variable({
    key: "port",
    schema: integer(0, 65_535).default(8787),
    description: "HTTP + WebSocket port (0 picks a free one)",
    commands: SERVING,
  }),
  LONGRUN_HOST: variable({
    key: "host",
    schema: text().default("127.0.0.1"),
    description: "interface to listen on (0.0.0.0 in a container); a worker's LONGRUN_METRICS_PORT too",
    commands: RUNNING,
  }),
  LONGRUN_DATA_DIR: variable({
    key: "dataDir",
    schema: folder().default(resolve(".longrun")),
    defaultText: ".longrun",
    description:
      "libSQL file, token, thread workspaces and history files; distributed: one shared volume, same path on serve and every worker",
    commands: WITH_DATABASE,
  }),
  DATABASE_URL: variable({
    key: "databaseUrlSetting",
    schema: url(["file:", "libsql:", "http:", "https:", "ws:", "wss:"]).optional(),
    defaultText: "file:<data dir>/longrun.db",
    description: "a libSQL file (file:…) or a libSQL server / Turso URL (libsql:, http(s):)",
    commands: WITH_DATABASE,
  }),
  DATABASE_AUTH_TOKEN: variable({
    key: "databaseAuthToken",
    schema: text().optional(),
    description: "auth token of a libSQL server / Turso database",
    commands: WITH_DATABASE,
    secret: true,
  }),
  REDIS_URL: variable({
    key: "redisUrl",
    schema: url(["redis:", "rediss:"]).optional(),
    description: "Redis for queues, leases, breaker state and pub/sub (required by serve and worker)",
    commands: DISTRIBUTED,
  }),
  OPENAI_BASE_URL: variable({
    key: "openaiBaseUrl",
    schema: url(["http:", "https:"]).optional(),
    description: "an OpenAI-compatible endpoint (…/v1); unset: the sim model",
    commands: RUNNING,
  }),
  OPENAI_API_KEY: variable({
    key: "openaiApiKey",
    schema: text().optional(),
    description: "API key for OPENAI_BASE_URL (required with it)",
    commands: RUNNING,
    secret: true,
  }),
  LONGRUN_SIM_URL: variable({
    key: "simUrl",
    schema: url(["http:", "https:"]).optional(),
    description: "origin of a standalone sim model (`longrun sim`), used instead of OPENAI_BASE_URL",
    commands: RUNNING,
  }),
  LONGRUN_UPSTREAM_API: variable({
    key: "upstreamApi",
    schema: oneOf(["chat-completions", "responses", "anthropic-messages"] as const).default(
      "chat-completions",
    ),
    description:
      "wire format of the agents' and the gateway's model calls: chat-completions, responses (OpenAI Responses, store: false) or anthropic-messages",
    commands: SERVING,
  }),
  ANTHROPIC_API_KEY: variable({
    key: "anthropicApiKey",
    schema: text().optional(),
    description: "API key for Anthropic Messages (with LONGRUN_UPSTREAM_API=anthropic-messages)",
    commands: RUNNING,
    secret: true,
  }),
  ANTHROPIC_BASE_URL: variable({
    key: "anthropicBaseUrl",
    schema: url(["http:", "https:"]).optional(),
    defaultText: "https://api.anthropic.com",
    description: "Anthropic endpoint (origin, without /v1)",
    commands: RUNNING,
  }),
  LONGRUN_THINKING_BUDGET: variable({
    key: "thinkingBudgetTokens",
    schema: integer(1024).optional(),
    defaultText: "no extended thinking",
    description:
      "Anthropic Messages: extended thinking budget of new threads and of gateway clients that set none (below their max output tokens)",
    commands: SERVING,
  }),
  LONGRUN_MODEL: variable({
    key: "model",
    schema: text().optional(),
    defaultText: "sim, or gpt-4o-mini with OPENAI_BASE_URL",
    description: "model for threads that name none",
    commands: SERVING,
  }),
  LONGRUN_MAX_INPUT_TOKENS: variable({
    key: "maxInputTokens",
    schema: integer(1024).optional(),
    defaultText: "the model profile's",
    description: "default input window for new threads",
    commands: SERVING,
  }),
  LONGRUN_TOKEN: variable({
    key: "token",
    schema: text(16).optional(),
    defaultText: "generated (start), none (serve)",
    description: "a fixed bearer token (16+ characters) for the default tenant",
    commands: SERVING,
    secret: true,
  }),
  LONGRUN_WORKSPACE_ROOTS: variable({
    key: "workspaceRoots",
    schema: folderList().default([]),
    defaultText: "none",
    description: "folders (: or , separated) inside which a thread may name an existing workspace",
    commands: RUNNING,
  }),
  LONGRUN_SNAPSHOT_MAX_BYTES: variable({
    key: "snapshotMaxBytes",
    schema: integer(0).default(1_048_576),
    description:
      "largest file content (bytes) kept in a workspace snapshot; a larger one keeps only its hash and size",
    commands: RUNNING,
  }),
  LONGRUN_SEARCH_URL: variable({
    key: "searchUrl",
    schema: url(["http:", "https:"]).optional(),
    defaultText: "none (no web_search tool)",
    description: "search endpoint behind the agents' web_search tool",
    commands: ["start", "worker"],
  }),
  LONGRUN_QUEUE_PREFIX: variable({
    key: "queuePrefix",
    schema: text().default("longrun"),
    description: "Redis key prefix for queues, leases, breakers and pub/sub",
    commands: DISTRIBUTED,
  }),
  LONGRUN_WORKER_CONCURRENCY: variable({
    key: "workerConcurrency",
    schema: integer(1, 256).default(4),
    description: "agent steps run at once by one worker process",
    commands: ["start", "worker"],
  }),
  LONGRUN_WORKER_DRAIN_MS: variable({
    key: "workerDrainMs",
    schema: integer(0).default(10_000),
    description:
      "on SIGTERM a worker finishes its steps this long, then hands them back (keep below the orchestrator's grace period)",
    commands: ["worker"],
  }),
  LONGRUN_TIME_ZONE: variable({
    key: "timeZone",
    schema: timeZone().default(systemTimeZone),
    defaultText: "the system's",
    description: "told to the summarizer so relative dates survive compaction",
    commands: RUNNING,
  }),
  LONGRUN_LEASE_MS: variable({
    key: "leaseMs",
    schema: integer(100).default(DEFAULT_LEASE_MS),
    description: "agent lease; a crashed worker's agents are free again after this",
    commands: RUNNING,
  }),
  LONGRUN_LOCK_MS: variable({
    key: "lockDurationMs",
    schema: integer(100).default(15_000),
    description: "BullMQ job lock; a crashed worker's jobs come back after this plus the stalled interval",
    commands: DISTRIBUTED,
  }),
  LONGRUN_STALLED_INTERVAL_MS: variable({
    key: "stalledIntervalMs",
    schema: integer(100).default(5_000),
    description: "how often workers look for stalled jobs (one value per deployment)",
    commands: DISTRIBUTED,
  }),
  LONGRUN_MAX_MESSAGE_CHARS: variable({
    key: "maxMessageChars",
    schema: integer(1, 1_000_000).default(200_000),
    description: "longest user message or sub-agent brief the API accepts, in characters; longer is a 413",
    commands: SERVING,
  }),
  LONGRUN_TENANT_MAX_RUNNING_RUNS: variable({
    key: "tenantMaxRunningRuns",
    schema: integer(1).default(DEFAULT_TENANT_LIMITS.maxRunningRuns),
    description:
      "threads of one tenant with a run under way at once; a new run past it is a 429 too_many_runs",
    commands: SERVING,
  }),
  LONGRUN_TENANT_MAX_QUEUED_RUNS: variable({
    key: "tenantMaxQueuedRuns",
    schema: integer(0).default(DEFAULT_TENANT_LIMITS.maxQueuedRuns),
    description: "runs of one tenant queued behind another run of their thread; past it a 429 too_many_runs",
    commands: SERVING,
  }),
  LONGRUN_TENANT_REQUESTS_PER_SECOND: variable({
    key: "tenantRequestsPerSecond",
    schema: positiveNumber().default(DEFAULT_TENANT_LIMITS.requestsPerSecond),
    description:
      "API requests per second one tenant may sustain (per server); past its burst a 429 rate_limited",
    commands: SERVING,
  }),
  LONGRUN_TENANT_REQUEST_BURST: variable({
    key: "tenantRequestBurst",
    schema: integer(1).default(DEFAULT_TENANT_LIMITS.requestBurst),
    description: "API requests one tenant may send in a burst above its rate",
    commands: SERVING,
  }),
  LONGRUN_TENANT_LIMITS: variable({
    key: "tenantLimitOverrides",
    schema: json(TenantLimitOverrides).default({}),
    defaultText: "none",
    description:
      'per-tenant overrides of the four limits above, JSON: {"tenant":{"maxRunningRuns":4,"requestsPerSecond":5}}',
    commands: SERVING,
  }),
  LONGRUN_MODELS: variable({
    key: "models",
    schema: nameList().default([]),
    defaultText: "ask the endpoint's GET /models",
    description: "comma-separated models threads may use on the configured endpoint",
    commands: SERVING,
  }),
  LONGRUN_RECONCILE_MS: variable({
    key: "reconcileMs",
    schema: integer(100).default(15_000),
    description: "how often the reconciler looks for runs that nothing moves (one instance at a time)",
    commands: RUNNING,
  }),
  LONGRUN_STALE_MS: variable({
    key: "staleMs",
    schema: integer(100).optional(),
    defaultText: "2 × LONGRUN_LEASE_MS, at least 5000",
    description: "a run with no job, lease or event for this long is restarted from the log",
    commands: RUNNING,
  }),
  LONGRUN_EVENT_MAX_AGE_MS: variable({
    key: "eventMaxAgeMs",
    schema: integer(60_000).optional(),
    defaultText: "keep every event",
    description: "event retention by age; a client that was away longer gets a resync",
    commands: RUNNING,
  }),
  LONGRUN_EVENTS_PER_THREAD: variable({
    key: "eventsPerThread",
    schema: integer(100).optional(),
    defaultText: "keep every event",
    description: "event retention: the newest N events of each thread are kept",
    commands: RUNNING,
  }),
  LONGRUN_METRICS_TOKEN: variable({
    key: "metricsToken",
    schema: text(16).optional(),
    defaultText: "none (admin tokens only)",
    description:
      "a bearer token (16+ characters) for GET /metrics besides admin tokens; a tenant's token is refused",
    commands: RUNNING,
    secret: true,
  }),
  LONGRUN_METRICS_PORT: variable({
    key: "metricsPort",
    schema: integer(0, 65_535).optional(),
    defaultText: "none (not exposed)",
    description: "a worker's own GET /metrics listens here (same credentials as the server's)",
    commands: ["worker"],
  }),
  LONGRUN_LOG_LEVEL: variable({
    key: "logLevel",
    schema: oneOf(["trace", "debug", "info", "warn", "error", "fatal", "silent"]).default("info"),
    description: "least level of the JSON log lines on stdout (pretty when stdout is a terminal)",
    commands: RUNNING,
  }),
  OTEL_EXPORTER_OTLP_ENDPOINT: variable({
    key: "otlpEndpoint",
    schema: url(["http:", "https:"]).optional(),
    description: "OTLP/HTTP collector base URL: traces are exported to it (`/v1/traces`); unset: tracing off",
    commands: RUNNING,
  }),
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: variable({
    key: "otlpTracesEndpoint",
    schema: url(["http:", "https:"]).optional(),
    description: "full OTLP/HTTP traces URL, instead of the base URL above",
    commands: RUNNING,
  }),
  OTEL_SERVICE_NAME: variable({
    key: "serviceName",
    schema: text().optional(),
    description: "service name on the traces",
    defaultText: "longrun-embedded, longrun-server, longrun-worker",
    commands: RUNNING,
  }),
} as const;

export type VariableName = keyof typeof VARIABLES;

/** Requirements that depend on the command: each is met when one of `anyOf` is set. */
export const REQUIREMENTS: ReadonlyArray<{
  commands: readonly ConfigCommand[];
  anyOf: readonly VariableName[];
  why: string;
}> = [
  {
    commands: DISTRIBUTED,
    anyOf: ["REDIS_URL"],
    why: "distributed mode keeps its queues, leases and pub/sub in Redis",
  },
  {
    commands: DISTRIBUTED,
    anyOf: ["OPENAI_BASE_URL", "LONGRUN_SIM_URL"],
    why: "distributed processes do not start a sim model of their own",
  },
];
