import type { OpsView } from "@longrun/protocol";

type Failure = OpsView["failures"][number];

/** Recent failures shown on the operations view, newest first, each visible to its own tenant only. */
export interface FailureLog {
  record(tenantId: string, entry: Failure): void;
  list(tenantId: string): Failure[];
}

/** A bounded in-memory failure log fed from run.failed and compaction.failed events. */
export function createFailureLog(perTenant = 50, tenants = 1000): FailureLog {
  const byTenant = new Map<string, Failure[]>();
  return {
    record(tenantId, entry) {
      // An event that reached us without its tenant is shown to nobody rather than to everybody.
      if (!tenantId) return;
      const entries = byTenant.get(tenantId) ?? [];
      byTenant.delete(tenantId);
      byTenant.set(tenantId, entries);
      entries.unshift(entry);
      entries.length = Math.min(entries.length, perTenant);
      // Least recently failing tenants go first when the map is full.
      if (byTenant.size > tenants) byTenant.delete(byTenant.keys().next().value as string);
    },
    list: (tenantId) => [...(byTenant.get(tenantId) ?? [])],
  };
}
