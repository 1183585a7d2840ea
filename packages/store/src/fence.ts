import { LongrunError, leaseLost } from "@longrun/protocol";
import type { SqlExecutor } from "./sql-engine.ts";

/**
 * Lease fencing, inside the caller's write transaction: a writer holding an older token than the
 * one already recorded lost its lease and must not append; a newer token is recorded.
 */
export async function checkFence(tx: SqlExecutor, agentId: string, fence: number): Promise<void> {
  // One statement on the common path: records the token unless a newer one is already there.
  const updated = await tx.execute({
    sql: "UPDATE agents SET fence = ? WHERE id = ? AND fence <= ? RETURNING fence",
    args: [fence, agentId, fence],
  });
  if (updated.rows.length > 0) return;
  const result = await tx.execute({ sql: "SELECT fence FROM agents WHERE id = ?", args: [agentId] });
  const row = result.rows[0];
  if (!row) throw new LongrunError("not_found", `agent ${agentId} not found`);
  const current = Number(row.fence);
  throw leaseLost(`fence ${fence} < ${current}`, { fence, currentFence: current });
}
