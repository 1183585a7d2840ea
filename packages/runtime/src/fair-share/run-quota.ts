import { LongrunError } from "@longrun/protocol";
import type { RuntimeDeps } from "../runtime-deps.ts";
import { DEFAULT_TENANT_LIMITS, limitsOf } from "./tenant-limits.ts";

/** How long a client refused for its run count is told to wait: runs end in seconds to minutes. */
const RUN_QUOTA_RETRY_MS = 2_000;

// Admissions of one tenant, one at a time per store, so parallel requests cannot all see the count
// below the limit and all pass (across server instances the limit can be passed by one each).
const admissions = new WeakMap<object, Map<string, Promise<unknown>>>();

/**
 * Throws `too_many_runs` (429, Retry-After) when the tenant cannot have one more run at `position` of
 * its thread: 0 starts now (limited by runs under way), above 0 waits behind another (limited by queued).
 */
export async function checkRunQuota(
  deps: Pick<RuntimeDeps, "store" | "tenantLimits">,
  tenantId: string,
  position: number,
): Promise<void> {
  const limits = limitsOf(deps.tenantLimits ?? { defaults: DEFAULT_TENANT_LIMITS, overrides: {} }, tenantId);
  const load = await deps.store.runs.tenantLoad(tenantId);
  if (position === 0 && load.activeThreads >= limits.maxRunningRuns) {
    throw refusal(
      `tenant ${tenantId} has runs under way in ${load.activeThreads} threads, its limit (maxRunningRuns ${limits.maxRunningRuns}); retry when one ends`,
      { limit: "maxRunningRuns", maxRunningRuns: limits.maxRunningRuns, activeThreads: load.activeThreads },
    );
  }
  if (position > 0 && load.queuedRuns >= limits.maxQueuedRuns) {
    throw refusal(
      `tenant ${tenantId} has ${load.queuedRuns} runs queued behind others, its limit (maxQueuedRuns ${limits.maxQueuedRuns}); retry when one starts`,
      { limit: "maxQueuedRuns", maxQueuedRuns: limits.maxQueuedRuns, queuedRuns: load.queuedRuns },
    );
  }
}

/** Runs `admit` alone among the admissions of the thread's tenant (it calls `checkRunQuota` inside). */
export async function withinRunQuota<T>(
  deps: Pick<RuntimeDeps, "store" | "tenantLimits">,
  threadId: string,
  admit: (check: (position: number) => Promise<void>) => Promise<T>,
): Promise<T> {
  const thread = await deps.store.threads.get(threadId);
  if (!thread) throw new LongrunError("not_found", `thread ${threadId} not found`);
  const tenantId = thread.tenantId;
  const check = (position: number) => checkRunQuota(deps, tenantId, position);
  let byTenant = admissions.get(deps.store);
  if (!byTenant) {
    byTenant = new Map();
    admissions.set(deps.store, byTenant);
  }
  const previous = byTenant.get(tenantId) ?? Promise.resolve();
  const mine = previous.then(
    () => admit(check),
    () => admit(check),
  );
  // The chain only orders admissions: the caller gets `mine`, and with it any error.
  const settled = mine.catch(() => undefined);
  byTenant.set(tenantId, settled);
  void settled.then(() => {
    if (byTenant.get(tenantId) === settled) byTenant.delete(tenantId);
  });
  return mine;
}

function refusal(message: string, details: Record<string, unknown>): LongrunError {
  return new LongrunError("too_many_runs", message, details, RUN_QUOTA_RETRY_MS);
}
