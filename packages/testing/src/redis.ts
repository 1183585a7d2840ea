import { randomUUID } from "node:crypto";
import { Redis } from "ioredis";

/** A Redis connection plus a key prefix owned by one test. */
export interface TestRedis {
  /** Redis URL (REDIS_URL or redis://127.0.0.1:6379). */
  url: string;
  /** Unique key prefix, no trailing colon; every key the test creates should start with `${prefix}:`. */
  prefix: string;
  redis: Redis;
  /** Deletes every key under the prefix (SCAN + DEL) and quits the connection. */
  cleanup(): Promise<void>;
}

/** Opens a Redis connection with a prefix unique to this test. */
export async function createTestRedis(): Promise<TestRedis> {
  const url = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
  const prefix = `lrtest-${randomUUID().slice(0, 12)}`;
  const redis = new Redis(url, { maxRetriesPerRequest: 3, lazyConnect: true });
  await redis.connect();
  return {
    url,
    prefix,
    redis,
    async cleanup() {
      await deleteKeysWithPrefix(redis, prefix);
      await redis.quit();
    },
  };
}

/** Deletes every key that starts with `${prefix}:`; returns how many were deleted. */
export async function deleteKeysWithPrefix(redis: Redis, prefix: string): Promise<number> {
  let cursor = "0";
  let deleted = 0;
  do {
    const [next, keys] = await redis.scan(cursor, "MATCH", `${prefix}:*`, "COUNT", 500);
    cursor = next;
    if (keys.length > 0) deleted += await redis.del(...keys);
  } while (cursor !== "0");
  return deleted;
}
