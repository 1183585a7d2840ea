/** Breaker position: closed (normal), open (cooling down), half_open (one trial allowed). */
export type BreakerState = "closed" | "open" | "half_open";

/** The whole breaker state of one agent instance, stored as one JSON value. */
export interface BreakerRecord {
  /** Bumped on every write; compare-and-set on it makes updates atomic across workers. */
  version: number;
  state: BreakerState;
  /** Consecutive summary failures since the last success. */
  failures: number;
  /** Times opened since the last close; the cooldown doubles with each. */
  level: number;
  cooldownMs: number;
  openedAt: number | null;
  openUntil: number | null;
  /** When the half-open trial was granted; null when none is in flight. */
  trialStartedAt: number | null;
  /** Key of the last overflow bypass granted, so each overflow bypasses at most once. */
  bypassKey: string | null;
}

/** Where breaker records live: in process, or in Redis shared by every worker. */
export interface BreakerStore {
  get(agentId: string): Promise<BreakerRecord | null>;
  /** Store `next` only if the stored version still equals `expectedVersion` (0 when absent). */
  compareAndSet(agentId: string, expectedVersion: number, next: BreakerRecord): Promise<boolean>;
  delete(agentId: string): Promise<void>;
}

/** A fresh, closed record. */
export function closedRecord(version = 0): BreakerRecord {
  return {
    version,
    state: "closed",
    failures: 0,
    level: 0,
    cooldownMs: 0,
    openedAt: null,
    openUntil: null,
    trialStartedAt: null,
    bypassKey: null,
  };
}

/** Breaker state kept in this process only (embedded mode, tests). */
export function createMemoryBreakerStore(): BreakerStore {
  // Records are kept serialized so callers can never mutate the stored copy.
  const records = new Map<string, string>();
  return {
    async get(agentId) {
      const raw = records.get(agentId);
      return raw === undefined ? null : (JSON.parse(raw) as BreakerRecord);
    },
    async compareAndSet(agentId, expectedVersion, next) {
      const raw = records.get(agentId);
      const version = raw === undefined ? 0 : (JSON.parse(raw) as BreakerRecord).version;
      if (version !== expectedVersion) return false;
      records.set(agentId, JSON.stringify(next));
      return true;
    },
    async delete(agentId) {
      records.delete(agentId);
    },
  };
}
