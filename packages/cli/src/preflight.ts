import { randomUUID } from "node:crypto";
import { access, constants, mkdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { Redis } from "ioredis";
import type { Config, ModelEndpoint } from "./config/load-config.ts";
import { StartupError } from "./startup-error.ts";

const CHECK_TIMEOUT_MS = 5_000;

/** The URL with any password replaced, for messages. */
export function redact(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = "***";
    return parsed.toString().replace(/\/$/, "");
  } catch {
    // Not a URL: shown as given.
    return url;
  }
}

/** The innermost cause's message and code: "fetch failed (ECONNREFUSED)", not a wrapper's text. */
function reason(error: unknown): string {
  let current: unknown = error;
  let message = error instanceof Error ? error.message : String(error);
  let code: string | undefined;
  for (let depth = 0; current && typeof current === "object" && depth < 6; depth += 1) {
    const record = current as { message?: unknown; code?: unknown; cause?: unknown };
    if (typeof record.message === "string" && record.message.trim()) message = record.message.trim();
    if (typeof record.code === "string") code = record.code;
    current = record.cause;
  }
  const firstLine = message.split("\n")[0] ?? message;
  return code && !firstLine.includes(code) ? `${firstLine} (${code})` : firstLine;
}

/** Redis answers PING (one attempt, no reconnect loop: a wrong URL must not hang the start). */
export async function checkRedis(url: string): Promise<string | null> {
  const redis = new Redis(url, {
    lazyConnect: true,
    connectTimeout: CHECK_TIMEOUT_MS,
    maxRetriesPerRequest: 0,
    enableOfflineQueue: false,
    retryStrategy: () => null,
  });
  let lastError: unknown;
  redis.on("error", (error) => {
    lastError = error;
  });
  try {
    await redis.connect();
    await redis.ping();
    return null;
  } catch (error) {
    return `REDIS_URL ${redact(url)}: cannot reach Redis: ${reason(lastError ?? error)}`;
  } finally {
    redis.disconnect();
  }
}

/** The data dir exists (or can be made), and a file can be written and removed in it. */
export async function checkDataDir(dir: string): Promise<string | null> {
  const probe = join(dir, `.write-check-${process.pid}-${randomUUID()}`);
  try {
    await mkdir(dir, { recursive: true });
    await writeFile(probe, "ok");
    await rm(probe);
    return null;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? "";
    return `LONGRUN_DATA_DIR ${dir}: not writable (${code || reason(error)}); workspaces and history files live here`;
  }
}

/** Each allowed workspace root exists and is a folder this process can read. */
export async function checkWorkspaceRoots(roots: string[]): Promise<string[]> {
  const problems: string[] = [];
  for (const root of roots) {
    try {
      if (!(await stat(root)).isDirectory()) throw new Error("not a folder");
      await access(root, constants.R_OK | constants.X_OK);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      problems.push(`LONGRUN_WORKSPACE_ROOTS: ${root} is not a readable folder (${code ?? reason(error)})`);
    }
  }
  return problems;
}

/**
 * The model endpoint answers `GET /models`. Any HTTP answer but 401/403 counts as reachable (some
 * OpenAI-compatible servers have no /models); a refused or rejected key does not.
 */
export async function checkModel(endpoint: NonNullable<ModelEndpoint>): Promise<string | null> {
  const variable = endpoint.kind === "sim" ? "LONGRUN_SIM_URL" : "OPENAI_BASE_URL";
  try {
    const response = await fetch(`${endpoint.baseURL}/models`, {
      headers: { authorization: `Bearer ${endpoint.apiKey}` },
      signal: AbortSignal.timeout(CHECK_TIMEOUT_MS),
    });
    await response.body?.cancel();
    if (response.status === 401 || response.status === 403) {
      return `OPENAI_API_KEY: the model endpoint ${endpoint.baseURL} refused it (HTTP ${response.status})`;
    }
    return null;
  } catch (error) {
    return `${variable} ${endpoint.baseURL}: cannot reach the model endpoint: ${reason(error)}`;
  }
}

/**
 * The data dir is the volume every process of this deployment shares: serve creates thread
 * workspaces in it and workers run tools there, so a worker with a volume of its own would fail every
 * step later. The first process writes an id into the volume and registers it in Redis; every later
 * one must find the same id in its own data dir.
 */
export async function checkSharedVolume(
  dataDir: string,
  redisUrl: string,
  prefix: string,
): Promise<string | null> {
  const file = join(dataDir, "volume-id");
  const key = `${prefix}:volume-id`;
  let id: string;
  try {
    await writeFile(file, `${randomUUID()}\n`, { flag: "wx" }).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== "EEXIST") throw error;
    });
    id = (await readFile(file, "utf8")).trim();
  } catch (error) {
    return `LONGRUN_DATA_DIR ${dataDir}: cannot read or write ${file}: ${reason(error)}`;
  }
  const redis = new Redis(redisUrl, {
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  redis.on("error", () => undefined);
  try {
    await redis.connect();
    await redis.set(key, id, "NX");
    const registered = await redis.get(key);
    if (registered === id) return null;
    return (
      `LONGRUN_DATA_DIR ${dataDir}: not the volume the other longrun processes share ` +
      `(its volume-id is ${id}, the deployment's is ${registered}). Mount one shared volume at the same ` +
      `path on serve and every worker; if the volume was replaced on purpose, delete the Redis key ${key}`
    );
  } catch (error) {
    return `REDIS_URL ${redact(redisUrl)}: cannot register the shared volume: ${reason(error)}`;
  } finally {
    redis.disconnect();
  }
}

const TIMED_OUT = Symbol("timed out");

/** Resolves like `promise`, or with TIMED_OUT after `ms`. */
async function within<T>(promise: Promise<T>, ms: number): Promise<T | typeof TIMED_OUT> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<typeof TIMED_OUT>((resolve) => {
    timer = setTimeout(() => resolve(TIMED_OUT), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** Runs one check with a time limit (a hung filesystem or socket must not hang the start). */
async function bounded(label: string, check: Promise<string | string[] | null>): Promise<string[]> {
  const result = await within(check, CHECK_TIMEOUT_MS * 2);
  if (result === TIMED_OUT) return [`${label}: no answer within ${CHECK_TIMEOUT_MS * 2} ms`];
  if (result === null) return [];
  return Array.isArray(result) ? result : [result];
}

/** The data dir, then (distributed) whether it is the deployment's shared volume. */
async function checkVolume(config: Config, distributed: boolean): Promise<string | null> {
  const problem = await checkDataDir(config.dataDir);
  if (problem || !distributed || !config.redisUrl) return problem;
  if (await checkRedis(config.redisUrl)) return null; // reported by the Redis check
  return checkSharedVolume(config.dataDir, config.redisUrl, config.queuePrefix);
}

/**
 * Checks everything a process needs before it takes any work — Redis (distributed), the data volume
 * (writable; distributed: the shared one), the allowed workspace roots, the model endpoint — while it
 * opens the database with `openStore`. Every problem is reported at once; on none, the store is returned.
 */
export async function preflight<S extends { close(): Promise<void> }>(
  config: Config,
  role: "start" | "serve" | "worker",
  openStore: () => Promise<S>,
): Promise<S> {
  const distributed = role !== "start";
  const where = `DATABASE_URL ${redact(config.databaseUrl)}`;
  const database: Promise<{ store: S } | { problem: string }> = within(
    openStore(),
    CHECK_TIMEOUT_MS * 3,
  ).then(
    (store) =>
      store === TIMED_OUT ? { problem: `${where}: no answer within ${CHECK_TIMEOUT_MS * 3} ms` } : { store },
    (error: unknown) => ({ problem: `${where}: cannot open the database: ${reason(error)}` }),
  );
  const checks = await Promise.all([
    distributed && config.redisUrl ? bounded("REDIS_URL", checkRedis(config.redisUrl)) : [],
    bounded(`LONGRUN_DATA_DIR ${config.dataDir}`, checkVolume(config, distributed)),
    bounded("LONGRUN_WORKSPACE_ROOTS", checkWorkspaceRoots(config.workspaceRoots)),
    config.modelEndpoint ? bounded("model endpoint", checkModel(config.modelEndpoint)) : [],
  ]);
  const problems = checks.flat();
  const opened = await database;
  if ("problem" in opened) problems.push(opened.problem);
  else if (problems.length === 0) return opened.store;
  // Start fails with the problems below; a close error would only hide them.
  else await opened.store.close().catch(() => undefined);
  throw new StartupError(role, problems);
}
