import { delimiter, resolve } from "node:path";
import { z } from "zod";

const optionalUrl = (name: string) =>
  z
    .string()
    .trim()
    .optional()
    .transform((value) => (value ? value : undefined))
    .refine((value) => value === undefined || URL.canParse(value), { message: `${name} must be a URL` });

const EnvSchema = z.object({
  PORT: z.coerce.number({ message: "PORT must be a number" }).int().min(0).max(65_535).default(8787),
  LONGRUN_HOST: z.string().default("127.0.0.1"),
  LONGRUN_DATA_DIR: z.string().default(".longrun"),
  DATABASE_URL: z.string().optional(),
  DATABASE_AUTH_TOKEN: z.string().optional(),
  REDIS_URL: optionalUrl("REDIS_URL"),
  OPENAI_BASE_URL: optionalUrl("OPENAI_BASE_URL"),
  OPENAI_API_KEY: z.string().optional(),
  LONGRUN_MODEL: z.string().min(1).optional(),
  LONGRUN_MAX_INPUT_TOKENS: z.coerce
    .number({ message: "LONGRUN_MAX_INPUT_TOKENS must be a number" })
    .int()
    .min(1024, "LONGRUN_MAX_INPUT_TOKENS must be at least 1024")
    .optional(),
  LONGRUN_TOKEN: z.string().min(16, "LONGRUN_TOKEN must be at least 16 characters").optional(),
  LONGRUN_WORKSPACE_ROOTS: z.string().optional(),
  LONGRUN_QUEUE_PREFIX: z.string().min(1).default("longrun"),
  LONGRUN_WORKER_CONCURRENCY: z.coerce.number().int().min(1).max(256).default(4),
  LONGRUN_TIME_ZONE: z.string().optional(),
  LONGRUN_LEASE_MS: z.coerce
    .number({ message: "LONGRUN_LEASE_MS must be a number" })
    .int()
    .min(100, "LONGRUN_LEASE_MS must be at least 100")
    .default(30_000),
  LONGRUN_LOCK_MS: z.coerce
    .number({ message: "LONGRUN_LOCK_MS must be a number" })
    .int()
    .min(100, "LONGRUN_LOCK_MS must be at least 100")
    .default(15_000),
  LONGRUN_MAX_MESSAGE_CHARS: z.coerce
    .number({ message: "LONGRUN_MAX_MESSAGE_CHARS must be a number" })
    .int()
    .min(1, "LONGRUN_MAX_MESSAGE_CHARS must be at least 1")
    .max(1_000_000, "LONGRUN_MAX_MESSAGE_CHARS must be at most 1000000 (the API's hard limit)")
    .default(200_000),
  LONGRUN_MODELS: z.string().optional(),
  LONGRUN_STALLED_INTERVAL_MS: z.coerce
    .number({ message: "LONGRUN_STALLED_INTERVAL_MS must be a number" })
    .int()
    .min(100, "LONGRUN_STALLED_INTERVAL_MS must be at least 100")
    .default(5_000),
});

/** Validated configuration of one process (DESIGN §2). */
export interface Config {
  port: number;
  host: string;
  dataDir: string;
  databaseUrl: string;
  databaseAuthToken?: string;
  redisUrl?: string;
  openaiBaseUrl?: string;
  openaiApiKey?: string;
  model?: string;
  maxInputTokens?: number;
  token?: string;
  workspaceRoots: string[];
  queuePrefix: string;
  workerConcurrency: number;
  timeZone: string;
  /** Agent lease ttl: a crashed worker's agents are free again after this long. */
  leaseMs: number;
  /** BullMQ job lock: a crashed worker's jobs are taken back after this plus the stalled interval. */
  lockDurationMs: number;
  /** How often workers look for stalled jobs; use one value per deployment. */
  stalledIntervalMs: number;
  /** Longest user message (or sub-agent brief) the API accepts, in characters; longer is a 413. */
  maxMessageChars: number;
  /** Models threads may use on the configured endpoint; empty: ask the endpoint's `GET /models`. */
  models: string[];
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n${problems.map((problem) => `  - ${problem}`).join("\n")}`);
    this.name = "ConfigError";
  }
}

/** Reads and validates the environment; every bad value is named with a clear message. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  // An empty variable (`LONGRUN_TOKEN=` in a compose file or shell) means "not set", not a bad value.
  const set = Object.fromEntries(Object.entries(env).filter(([, value]) => value?.trim()));
  const parsed = EnvSchema.safeParse(set);
  if (!parsed.success) {
    throw new ConfigError(parsed.error.issues.map((issue) => `${issue.path.join(".")}: ${issue.message}`));
  }
  const values = parsed.data;
  const problems: string[] = [];
  if (values.OPENAI_BASE_URL && !values.OPENAI_API_KEY)
    problems.push("OPENAI_API_KEY is required with OPENAI_BASE_URL");
  const timeZone = values.LONGRUN_TIME_ZONE ?? Intl.DateTimeFormat().resolvedOptions().timeZone ?? "UTC";
  try {
    new Intl.DateTimeFormat("en-US", { timeZone });
  } catch {
    problems.push(`LONGRUN_TIME_ZONE: unknown time zone ${timeZone}`);
  }
  if (problems.length > 0) throw new ConfigError(problems);
  const dataDir = resolve(values.LONGRUN_DATA_DIR);
  return {
    port: values.PORT,
    host: values.LONGRUN_HOST,
    dataDir,
    databaseUrl: values.DATABASE_URL ?? `file:${resolve(dataDir, "longrun.db")}`,
    databaseAuthToken: values.DATABASE_AUTH_TOKEN,
    redisUrl: values.REDIS_URL,
    openaiBaseUrl: values.OPENAI_BASE_URL,
    openaiApiKey: values.OPENAI_API_KEY,
    model: values.LONGRUN_MODEL,
    maxInputTokens: values.LONGRUN_MAX_INPUT_TOKENS,
    token: values.LONGRUN_TOKEN,
    workspaceRoots: (values.LONGRUN_WORKSPACE_ROOTS ?? "")
      .split(delimiter)
      .flatMap((part) => part.split(","))
      .map((part) => part.trim())
      .filter((part) => part.length > 0)
      .map((part) => resolve(part)),
    queuePrefix: values.LONGRUN_QUEUE_PREFIX,
    workerConcurrency: values.LONGRUN_WORKER_CONCURRENCY,
    timeZone,
    leaseMs: values.LONGRUN_LEASE_MS,
    lockDurationMs: values.LONGRUN_LOCK_MS,
    stalledIntervalMs: values.LONGRUN_STALLED_INTERVAL_MS,
    maxMessageChars: values.LONGRUN_MAX_MESSAGE_CHARS,
    models: (values.LONGRUN_MODELS ?? "")
      .split(",")
      .map((part) => part.trim())
      .filter((part) => part.length > 0),
  };
}
