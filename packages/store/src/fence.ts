import type { Transaction } from "@libsql/client";
import { LongrunError } from "@longrun/protocol";

/**
 * Lease fencing, inside the caller's write transaction: a writer holding an older token than the
 * one already recorded lost its lease and must not append; a newer token is recorded.
 */
export async function checkFence(tx: Transaction, agentId: string, fence: number): Promise<void> {
  const result = await tx.execute({ sql: "SELECT fence FROM agents WHERE id = ?", args: [agentId] });
  const row = result.rows[0];
  if (!row) throw new LongrunError("not_found", `agent ${agentId} not found`);
  const current = Number(row.fence);
  if (current > fence) {
    throw new LongrunError("conflict", `lease lost: fence ${fence} < ${current}`, {
      leaseLost: true,
      fence,
      currentFence: current,
    });
  }
  if (current < fence) {
    await tx.execute({ sql: "UPDATE agents SET fence = ? WHERE id = ?", args: [fence, agentId] });
  }
}

/** True for the error `checkFence` throws when a newer lease holder has appended. */
export function isLeaseLost(error: unknown): boolean {
  return (
    LongrunError.isInstance(error) &&
    error.code === "conflict" &&
    typeof error.details === "object" &&
    error.details !== null &&
    (error.details as { leaseLost?: unknown }).leaseLost === true
  );
}
