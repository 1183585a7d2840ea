import { errorFields, type Logger, silentLogger } from "@longrun/protocol";
import type { Redis } from "ioredis";

/** What a process knows about its Redis: up or down, logged once per change, never per retry. */
export interface RedisHealth {
  /** False from the first connection error until a connection is ready again. */
  readonly up: boolean;
  /** Reports a connection error (ioredis retries forever: only the first one of an outage is logged). */
  error(source: string, error: unknown): void;
  /** Reports a connection that became ready. */
  ready(source: string): void;
  /** Listens to a client's `error` and `ready` events (and keeps ioredis from logging unhandled errors). */
  watch(client: Pick<Redis, "on">, source: string): void;
}

/** Tracks Redis health for one process; `log` receives one line per state change. */
export function createRedisHealth(log: Logger = silentLogger): RedisHealth {
  let up = true;
  let downSince = 0;
  const health: RedisHealth = {
    get up() {
      return up;
    },
    error(source, error) {
      if (!up) return;
      up = false;
      downSince = Date.now();
      log.error(
        { source, ...errorFields(error), redis: "down" },
        `Redis unreachable: ${describe(error)}; retrying in the background`,
      );
    },
    ready(source) {
      if (up) return;
      up = true;
      log.info({ source, redis: "up", downMs: Date.now() - downSince }, "Redis reachable again");
    },
    watch(client, source) {
      client.on("error", (error: unknown) => health.error(source, error));
      client.on("ready", () => health.ready(source));
    },
  };
  return health;
}

function describe(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.split("\n")[0] ?? message;
}

/** True for errors that mean "Redis is not reachable now" (not a bad command). */
export function isRedisUnavailable(error: unknown): boolean {
  const message = error instanceof Error ? error.message : String(error);
  const code = (error as { code?: unknown } | null)?.code;
  return (
    /enableOfflineQueue|Connection is closed|ECONNREFUSED|ECONNRESET|ETIMEDOUT|EPIPE|Stream isn't writeable|MaxRetriesPerRequest/i.test(
      message,
    ) ||
    (typeof code === "string" && /ECONNREFUSED|ECONNRESET|ETIMEDOUT|EPIPE/.test(code))
  );
}
