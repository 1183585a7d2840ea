import { type ApprovalRule, LongrunError } from "@longrun/protocol";
import { and, asc, eq, isNull, or } from "drizzle-orm";
import type { StoreContext } from "./context.ts";
import { newId } from "./ids.ts";
import { approvalRules } from "./schema.ts";

export interface NewApprovalRule {
  tenantId: string;
  /** Null: every thread of the tenant. */
  threadId: string | null;
  toolName: string;
  pattern: string;
  fromCall?: string | null;
}

export interface ApprovalRuleRepository {
  create(input: NewApprovalRule): Promise<ApprovalRule>;
  /** The tenant's live rules, oldest first; with `threadId`, those that apply to that thread. */
  list(tenantId: string, options?: { threadId?: string; toolName?: string }): Promise<ApprovalRule[]>;
  /** Revokes a live rule of the tenant (kept, never matching again); not_found otherwise. */
  revoke(tenantId: string, id: string): Promise<ApprovalRule>;
}

type Row = typeof approvalRules.$inferSelect;

const toRule = (row: Row): ApprovalRule => ({
  id: row.id,
  tenantId: row.tenantId,
  threadId: row.threadId,
  scope: row.threadId === null ? "tenant" : "thread",
  toolName: row.toolName,
  pattern: row.pattern,
  fromCall: row.fromCall,
  createdAt: row.createdAt,
});

/** "Always approve" rules of a tenant or a thread. */
export function createApprovalRuleRepository(context: StoreContext): ApprovalRuleRepository {
  return {
    async create(input) {
      const now = context.now();
      const row: Row = {
        id: newId(now),
        tenantId: input.tenantId,
        threadId: input.threadId,
        toolName: input.toolName,
        pattern: input.pattern,
        fromCall: input.fromCall ?? null,
        createdAt: now,
        revokedAt: null,
      };
      await context.write((tx) => tx.insert(approvalRules).values(row));
      return toRule(row);
    },
    async list(tenantId, options = {}) {
      const rows = await context.read((db) =>
        db
          .select()
          .from(approvalRules)
          .where(
            and(
              eq(approvalRules.tenantId, tenantId),
              isNull(approvalRules.revokedAt),
              options.toolName === undefined ? undefined : eq(approvalRules.toolName, options.toolName),
              options.threadId === undefined
                ? undefined
                : or(isNull(approvalRules.threadId), eq(approvalRules.threadId, options.threadId)),
            ),
          )
          .orderBy(asc(approvalRules.createdAt), asc(approvalRules.id)),
      );
      return rows.map(toRule);
    },
    async revoke(tenantId, id) {
      const rows = await context.write((tx) =>
        tx
          .update(approvalRules)
          .set({ revokedAt: context.now() })
          .where(
            and(
              eq(approvalRules.id, id),
              eq(approvalRules.tenantId, tenantId),
              isNull(approvalRules.revokedAt),
            ),
          )
          .returning(),
      );
      const row = rows[0];
      if (!row) throw new LongrunError("not_found", `approval rule ${id} not found`);
      return toRule(row);
    },
  };
}
