import { backoffDelay } from "@longrun/protocol";
import { type BreakerRecord, type BreakerState, type BreakerStore, closedRecord } from "./breaker-store.ts";

export interface BreakerOptions {
  store: BreakerStore;
  /** Consecutive summary failures that open the breaker (default 3). */
  threshold?: number;
  /** First cooldown (default 30 s); doubles with each reopening. */
  baseCooldownMs?: number;
  /** Cooldown cap (default 30 min). */
  maxCooldownMs?: number;
  /** A half-open trial that never reports back frees the slot after this long (default 10 min). */
  trialTimeoutMs?: number;
  now?: () => number;
}

export interface CheckOptions {
  /** "overflow": the provider rejected a request as too long; one attempt may pass an open breaker. */
  bypass?: "overflow";
  /** Identity of that overflow (e.g. the failed request's id); default: one bypass per open period. */
  overflowKey?: string;
}

export interface CheckResult {
  allowed: boolean;
  state: BreakerState;
  /** When a blocked caller may try again. */
  retryAt?: number;
  /** True when allowed only because of an overflow bypass. */
  bypassed?: boolean;
}

export interface FailureResult {
  /** True when this failure opened (or reopened) the breaker: emit breaker.opened. */
  opened: boolean;
  state: BreakerState;
  failures: number;
  cooldownMs: number;
  openUntil: number | null;
}

export interface BreakerSnapshot {
  state: BreakerState;
  failures: number;
  level: number;
  cooldownMs: number;
  openUntil: number | null;
  trialInFlight: boolean;
}

/** A per-agent circuit breaker around LLM compaction (summary) attempts. */
export interface Breaker {
  /** May a summary attempt run now? Consumes the half-open trial or the overflow bypass it grants. */
  check(agentId: string, options?: CheckOptions): Promise<CheckResult>;
  /**
   * What `check` would answer, without consuming anything: for a caller that only decides whether to
   * queue an attempt (the attempt itself then calls `check`).
   */
  peek(agentId: string, options?: CheckOptions): Promise<CheckResult>;
  /**
   * A summary succeeded; `closed` is true when the breaker was open or half-open (emit breaker.closed),
   * `failures` the consecutive failures it had counted.
   */
  recordSuccess(agentId: string): Promise<{ closed: boolean; failures: number }>;
  /** A summary failed; may open the breaker or reopen it with a doubled cooldown. */
  recordFailure(agentId: string): Promise<FailureResult>;
  /** The current state, without side effects. */
  state(agentId: string): Promise<BreakerSnapshot>;
  /** Forget an agent's breaker (e.g. when the agent is deleted). */
  reset(agentId: string): Promise<void>;
}

const MAX_CAS_ATTEMPTS = 50;

/** Create a breaker over a store; every transition is one compare-and-set, so workers can share it. */
export function createBreaker(options: BreakerOptions): Breaker {
  const { store } = options;
  const threshold = options.threshold ?? 3;
  const baseCooldownMs = options.baseCooldownMs ?? 30_000;
  const maxCooldownMs = options.maxCooldownMs ?? 30 * 60_000;
  const trialTimeoutMs = options.trialTimeoutMs ?? 10 * 60_000;
  const now = options.now ?? Date.now;

  const cooldownFor = (level: number) =>
    backoffDelay(level, { baseMs: baseCooldownMs, capMs: maxCooldownMs, jitter: 0 });

  // Read, compute, compare-and-set; on a concurrent write, start over from the fresh value.
  async function update<T>(
    agentId: string,
    transition: (record: BreakerRecord, at: number) => { next: BreakerRecord | null; result: T },
  ): Promise<T> {
    for (let attempt = 0; attempt < MAX_CAS_ATTEMPTS; attempt++) {
      const current = (await store.get(agentId)) ?? closedRecord();
      const { next, result } = transition(current, now());
      if (next === null) return result;
      if (await store.compareAndSet(agentId, current.version, { ...next, version: current.version + 1 })) {
        return result;
      }
    }
    throw new Error(`breaker state of ${agentId} is too contended to update`);
  }

  function open(record: BreakerRecord, at: number, failures: number): BreakerRecord {
    const level = record.level + 1;
    const cooldownMs = cooldownFor(level);
    return {
      ...record,
      state: "open",
      failures,
      level,
      cooldownMs,
      openedAt: at,
      openUntil: at + cooldownMs,
      trialStartedAt: null,
    };
  }

  // The answer to "may an attempt run now?" and the record that grants it (null: nothing to record).
  function decide(
    record: BreakerRecord,
    at: number,
    checkOptions: CheckOptions,
  ): { next: BreakerRecord | null; result: CheckResult } {
    if (record.state === "closed") return { next: null, result: { allowed: true, state: "closed" } };
    const cooled = record.state === "open" && at >= (record.openUntil ?? 0);
    const trialExpired =
      record.state === "half_open" &&
      (record.trialStartedAt === null || at - record.trialStartedAt >= trialTimeoutMs);
    if (cooled || trialExpired) {
      return {
        next: { ...record, state: "half_open", trialStartedAt: at },
        result: { allowed: true, state: "half_open" },
      };
    }
    if (checkOptions.bypass === "overflow") {
      const key = checkOptions.overflowKey ?? `open@${record.openedAt}`;
      if (key !== record.bypassKey) {
        return {
          next: { ...record, bypassKey: key },
          result: { allowed: true, state: record.state, bypassed: true },
        };
      }
    }
    const retryAt =
      record.state === "open" ? (record.openUntil ?? at) : (record.trialStartedAt ?? at) + trialTimeoutMs;
    return { next: null, result: { allowed: false, state: record.state, retryAt } };
  }

  const check = (agentId: string, checkOptions: CheckOptions = {}) =>
    update<CheckResult>(agentId, (record, at) => decide(record, at, checkOptions));

  return {
    check,
    async peek(agentId, checkOptions = {}) {
      return decide((await store.get(agentId)) ?? closedRecord(), now(), checkOptions).result;
    },
    recordSuccess(agentId) {
      return update<{ closed: boolean; failures: number }>(agentId, (record) => {
        if (record.state === "closed" && record.failures === 0) {
          return { next: null, result: { closed: false, failures: 0 } };
        }
        return {
          next: closedRecord(record.version),
          result: { closed: record.state !== "closed", failures: record.failures },
        };
      });
    },
    recordFailure(agentId) {
      return update<FailureResult>(agentId, (record, at) => {
        const failures = record.failures + 1;
        const cooled = at >= (record.openUntil ?? 0);
        // Closed: open at the threshold. Half-open (or a cooled open): the trial failed, reopen doubled.
        // Open and cooling: a bypassed attempt failed, and the current cooldown simply continues.
        const opened =
          record.state === "closed" ? failures >= threshold : record.state === "half_open" || cooled;
        const next = opened ? open(record, at, failures) : { ...record, failures };
        return {
          next,
          result: {
            opened,
            state: next.state,
            failures,
            cooldownMs: next.cooldownMs,
            openUntil: next.openUntil,
          },
        };
      });
    },
    async state(agentId) {
      const record = (await store.get(agentId)) ?? closedRecord();
      return {
        state: record.state,
        failures: record.failures,
        level: record.level,
        cooldownMs: record.cooldownMs,
        openUntil: record.openUntil,
        trialInFlight: record.state === "half_open" && record.trialStartedAt !== null,
      };
    },
    reset: (agentId) => store.delete(agentId),
  };
}
