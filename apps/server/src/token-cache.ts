/** What a valid token stands for: its tenant, its key (for revocation) and whether it is an admin key. */
export interface TokenKey {
  tenantId: string;
  keyId: string;
  admin: boolean;
}

/** How long a token's answer from the store is trusted for refusals, by default. */
export const TOKEN_CACHE_TTL_MS = 500;
/** Tokens remembered at most (a flood of made-up tokens must not grow the map without bound). */
const MAX_TOKENS = 10_000;

interface Entry {
  key: TokenKey | null;
  expiresAt: number;
}

/**
 * What the store said about a token in the last `ttlMs`: a key, or null for an unknown or revoked
 * token. It lets the server refuse a request without touching the store — a tenant over its request
 * rate, a token refused moments ago — while a request that is served still verifies its token against
 * the store, so a revocation takes effect at once for every request that would do work, and within
 * `ttlMs` for refusals (a revoked token over its rate is answered 429 until then, 401 after).
 */
export interface TokenCache {
  /** The store's answer about `token` if it is younger than the expiry, else undefined. */
  recent(token: string): TokenKey | null | undefined;
  /** Asks the store and remembers its answer (a failed read is not remembered). */
  verify(token: string): Promise<TokenKey | null>;
}

/** A token cache over `verify` (the store's `apiKeys.verify`). */
export function createTokenCache(
  verify: (token: string) => Promise<TokenKey | null>,
  options: { ttlMs?: number; maxTokens?: number; now?: () => number } = {},
): TokenCache {
  const ttlMs = options.ttlMs ?? TOKEN_CACHE_TTL_MS;
  const maxTokens = options.maxTokens ?? MAX_TOKENS;
  const now = options.now ?? Date.now;
  const entries = new Map<string, Entry>();

  const remember = (token: string, key: TokenKey | null, time: number) => {
    // Deleted first so the map's order stays the order of last verification: the oldest go first.
    entries.delete(token);
    entries.set(token, { key, expiresAt: time + ttlMs });
    if (entries.size <= maxTokens) return;
    for (const [stale, entry] of entries) if (entry.expiresAt <= time) entries.delete(stale);
    for (const oldest of entries.keys()) {
      if (entries.size <= maxTokens) break;
      entries.delete(oldest);
    }
  };

  return {
    recent(token) {
      const entry = entries.get(token);
      if (!entry) return undefined;
      if (entry.expiresAt > now()) return entry.key;
      entries.delete(token);
      return undefined;
    },
    async verify(token) {
      // Counted from the question, not the answer: the answer says what the store held then.
      const askedAt = now();
      const key = await verify(token);
      remember(token, key, askedAt);
      return key;
    },
  };
}
