import type { Redis } from "ioredis";
import type { BreakerRecord, BreakerStore } from "./breaker-store.ts";

/** Default key prefix; one key per agent instance. */
export const DEFAULT_BREAKER_PREFIX = "longrun:breaker:";

// Compare-and-set in one server-side step: read the stored version, write only if it is unchanged.
const COMPARE_AND_SET = `
local current = redis.call('GET', KEYS[1])
local version = 0
if current then version = tonumber(cjson.decode(current).version) or 0 end
if version ~= tonumber(ARGV[1]) then return 0 end
local ttl = tonumber(ARGV[3])
if ttl > 0 then redis.call('SET', KEYS[1], ARGV[2], 'PX', ttl) else redis.call('SET', KEYS[1], ARGV[2]) end
return 1
`;

export interface RedisBreakerStoreOptions {
  redis: Redis;
  prefix?: string;
  /** Idle records expire after this long (default 7 days); 0 keeps them forever. */
  ttlMs?: number;
}

/** Breaker state in Redis, so every worker and server instance sees the same breaker. */
export function createRedisBreakerStore(options: RedisBreakerStoreOptions): BreakerStore {
  const { redis } = options;
  const prefix = options.prefix ?? DEFAULT_BREAKER_PREFIX;
  const ttlMs = options.ttlMs ?? 7 * 24 * 60 * 60 * 1000;
  const key = (agentId: string) => `${prefix}${agentId}`;
  return {
    async get(agentId) {
      const raw = await redis.get(key(agentId));
      return raw === null ? null : (JSON.parse(raw) as BreakerRecord);
    },
    async compareAndSet(agentId, expectedVersion, next) {
      const written = await redis.eval(
        COMPARE_AND_SET,
        1,
        key(agentId),
        String(expectedVersion),
        JSON.stringify(next),
        String(ttlMs),
      );
      return written === 1;
    },
    async delete(agentId) {
      await redis.del(key(agentId));
    },
  };
}
