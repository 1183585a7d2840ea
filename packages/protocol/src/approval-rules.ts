import { z } from "zod";

/**
 * How far a decision reaches: `once` is the decision on this call only (no rule); `thread` and
 * `tenant` make a rule that approves later matching calls of the thread, or of every thread of the
 * tenant, until it is revoked.
 */
export const ApprovalRuleScope = z.enum(["once", "thread", "tenant"]);
export type ApprovalRuleScope = z.infer<typeof ApprovalRuleScope>;

/**
 * A glob over a call's subject: run_command's `command`, or a file tool's `path`. `*` matches any run
 * of characters (`/` included), `?` one character; everything else is literal, and the whole subject
 * must match (`git status*` matches `git status --short`).
 */
export const ApprovalRulePattern = z.string().min(1).max(1000);

/** An "always approve" rule (GET /v1/approval-rules). */
export const ApprovalRule = z
  .object({
    id: z.string(),
    tenantId: z.string(),
    /** The thread it applies to; null: every thread of the tenant. */
    threadId: z.string().nullable(),
    scope: z.enum(["thread", "tenant"]),
    toolName: z.string(),
    pattern: z.string(),
    /** The call whose decision made it (`agentId/callId`), null when created directly. */
    fromCall: z.string().nullable(),
    createdAt: z.number().int(),
  })
  .meta({ id: "ApprovalRule" });
export type ApprovalRule = z.infer<typeof ApprovalRule>;

/** A rule as a decision (POST …/approvals/{callId} `rule`) or a direct creation asks for it. */
export const ApprovalRuleChoice = z.object({
  scope: ApprovalRuleScope,
  /** Default: the deciding call's own subject, exactly (`*` and `?` in it escaped by `\`). */
  pattern: ApprovalRulePattern.optional(),
});

/** POST /v1/approval-rules: a rule made ahead of any call. */
export const CreateApprovalRuleBody = z
  .object({
    scope: z.enum(["tenant", "thread"]),
    /** Required with scope `thread`. */
    threadId: z.string().min(1).max(200).optional(),
    toolName: z.string().min(1).max(200),
    pattern: ApprovalRulePattern,
  })
  .meta({ id: "CreateApprovalRuleBody" });
export type CreateApprovalRuleBody = z.infer<typeof CreateApprovalRuleBody>;

export const ApprovalRuleQuery = z.object({
  /** Only the rules that apply to this thread (its own and the tenant's). Thread ids are UUID-shaped. */
  threadId: z
    .string()
    .regex(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/)
    .meta({ examples: ["01a24a51-78b5-70f2-b170-38e2fae981a9"] })
    .optional(),
});

export const ApprovalRuleList = z.object({ rules: z.array(ApprovalRule) }).meta({ id: "ApprovalRuleList" });
export type ApprovalRuleList = z.infer<typeof ApprovalRuleList>;
