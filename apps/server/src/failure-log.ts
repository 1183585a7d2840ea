import type { OpsView } from "@longrun/protocol";
import { LRUCache } from "lru-cache";

type Failure = OpsView["failures"][number];

/** Recent failures shown on the operations view, newest first, each visible to its own tenant only. */
export interface FailureLog {
  record(tenantId: string, entry: Failure): void;
  list(tenantId: string): Failure[];
}

/** A bounded in-memory failure log fed from run.failed and compaction.failed events. */
export function createFailureLog(perTenant = 50, tenants = 1000): FailureLog {
  // Least recently failing tenants go first when the map is full.
  const byTenant = new LRUCache<string, Failure[]>({ max: tenants });
  return {
    record(tenantId, entry) {
      // An event that reached us without its tenant is shown to nobody rather than to everybody.
      if (!tenantId) return;
      const entries = byTenant.get(tenantId) ?? [];
      byTenant.set(tenantId, entries);
      entries.unshift(entry);
      entries.length = Math.min(entries.length, perTenant);
    },
    // `peek`: reading the view does not make a tenant recent.
    list: (tenantId) => [...(byTenant.peek(tenantId) ?? [])],
  };
}
