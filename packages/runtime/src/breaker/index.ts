export {
  type Breaker,
  type BreakerOptions,
  type BreakerSnapshot,
  type CheckOptions,
  type CheckResult,
  createBreaker,
  type FailureResult,
} from "./breaker.ts";
export {
  type BreakerRecord,
  type BreakerState,
  type BreakerStore,
  closedRecord,
  createMemoryBreakerStore,
} from "./breaker-store.ts";
export {
  createRedisBreakerStore,
  DEFAULT_BREAKER_PREFIX,
  type RedisBreakerStoreOptions,
} from "./redis-breaker-store.ts";
