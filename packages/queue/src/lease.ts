import type { Redis } from "ioredis";

/** A held lease. `token` is the fencing token: higher than every token handed out before for this key. */
export interface LeaseHandle {
  readonly key: string;
  readonly token: number;
  /** Gives the lease up; false if it had already expired (or been taken by someone else). */
  release(): Promise<boolean>;
  /** Extends the lease by `ttlMs` (default: the acquire ttl); false if it was lost. */
  renew(ttlMs?: number): Promise<boolean>;
}

/** One holder per key at a time (one step per agent), with fencing tokens for whoever writes after. */
export interface Lease {
  /**
   * The lease, or null if someone else holds it. The token is above `floor` (the highest token the
   * database of record has seen for this key) and above every token handed out before, so tokens
   * never go backwards even when the lease store lost its counters (Redis restarted empty).
   */
  acquire(key: string, ttlMs: number, options?: { floor?: number }): Promise<LeaseHandle | null>;
  /** True while someone holds the lease. */
  isHeld(key: string): Promise<boolean>;
}

/** How long an agent's lease lives without renewal (LONGRUN_LEASE_MS); a crashed holder's agent is free after it. */
export const DEFAULT_LEASE_MS = 30_000;

/** The token counters only need to outlive a lease: the database of record is the floor. */
const FENCE_TTL_MS = 7 * 24 * 60 * 60 * 1000;

// Atomic so a token is never handed out without the lease that goes with it.
const ACQUIRE = `
if redis.call('EXISTS', KEYS[1]) == 1 then return nil end
local current = tonumber(redis.call('GET', KEYS[2]) or '0')
local floor = tonumber(ARGV[2])
if current < floor then current = floor end
local token = current + 1
redis.call('SET', KEYS[2], token, 'PX', ARGV[3])
redis.call('SET', KEYS[1], token, 'PX', ARGV[1])
return token`;
// A holder whose lease vanished (Redis lost its data) takes it back, unless someone else holds it or a
// higher token was handed out since: the lease follows the work instead of stranding it.
const RENEW = `
local current = redis.call('GET', KEYS[1])
if current == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
if current then return 0 end
local token = tonumber(ARGV[1])
if tonumber(redis.call('GET', KEYS[2]) or '0') > token then return 0 end
redis.call('SET', KEYS[2], token, 'PX', ARGV[3])
redis.call('SET', KEYS[1], token, 'PX', ARGV[2])
return 1`;
const RELEASE = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0`;

/** Lease on Redis: `${prefix}:lease:<key>` holds the token; `${prefix}:fence:<key>` counts tokens. */
export function createRedisLease(redis: Redis, prefix: string): Lease {
  const leaseKey = (key: string) => `${prefix}:lease:${key}`;
  const fenceKey = (key: string) => `${prefix}:fence:${key}`;
  return {
    async isHeld(key) {
      return (await redis.exists(leaseKey(key))) === 1;
    },
    async acquire(key, ttlMs, options = {}) {
      const result = await redis.eval(
        ACQUIRE,
        2,
        leaseKey(key),
        fenceKey(key),
        Math.ceil(ttlMs),
        Math.max(0, Math.floor(options.floor ?? 0)),
        FENCE_TTL_MS,
      );
      if (result === null) return null;
      const token = Number(result);
      return {
        key,
        token,
        async release() {
          return Number(await redis.eval(RELEASE, 1, leaseKey(key), String(token))) === 1;
        },
        async renew(renewTtlMs = ttlMs) {
          return (
            Number(
              await redis.eval(
                RENEW,
                2,
                leaseKey(key),
                fenceKey(key),
                String(token),
                Math.ceil(renewTtlMs),
                FENCE_TTL_MS,
              ),
            ) === 1
          );
        },
      };
    },
  };
}

/** Lease in process memory (embedded mode); same semantics as the Redis one. */
export function createMemoryLease(now: () => number = Date.now): Lease {
  const holders = new Map<string, { token: number; expiresAt: number }>();
  const fences = new Map<string, number>();
  const holds = (key: string, token: number) => {
    const holder = holders.get(key);
    return holder !== undefined && holder.token === token && holder.expiresAt > now();
  };
  return {
    async isHeld(key) {
      const holder = holders.get(key);
      return holder !== undefined && holder.expiresAt > now();
    },
    async acquire(key, ttlMs, options = {}) {
      const holder = holders.get(key);
      if (holder && holder.expiresAt > now()) return null;
      const token = Math.max(fences.get(key) ?? 0, Math.floor(options.floor ?? 0)) + 1;
      fences.set(key, token);
      holders.set(key, { token, expiresAt: now() + ttlMs });
      return {
        key,
        token,
        async release() {
          if (!holds(key, token)) return false;
          holders.delete(key);
          return true;
        },
        async renew(renewTtlMs = ttlMs) {
          const holder = holders.get(key);
          const heldByOther = holder !== undefined && holder.token !== token && holder.expiresAt > now();
          // Lapsed and nobody took it since (no higher token): the holder takes it back, as on Redis.
          if (heldByOther || (fences.get(key) ?? 0) > token) return false;
          holders.set(key, { token, expiresAt: now() + renewTtlMs });
          return true;
        },
      };
    },
  };
}
