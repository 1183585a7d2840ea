import type { Approval, ApprovalRule, ToolCall } from "@longrun/protocol";
import { LongrunError } from "@longrun/protocol";
import type { NewApprovalRule, UnitOfWork } from "@longrun/store";
import type { Announce } from "../events/commit.ts";
import type { RuntimeDeps } from "../runtime-deps.ts";

/** What a rule's pattern is matched against: run_command's command, else a file tool's path. */
export function callSubject(toolName: string, argumentsJson: string): string | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(argumentsJson);
  } catch {
    // Arguments that are not JSON have no command or path a rule could match: the call is asked about.
    return null;
  }
  if (typeof parsed !== "object" || parsed === null) return null;
  const args = parsed as Record<string, unknown>;
  const value = toolName === "run_command" ? args.command : args.path;
  return typeof value === "string" ? value : null;
}

/** `*` any run of characters, `?` one, `\` escapes the next one; the whole subject must match. */
export function globMatches(pattern: string, subject: string): boolean {
  let source = "";
  for (let index = 0; index < pattern.length; index++) {
    const char = pattern[index]!;
    if (char === "\\" && index + 1 < pattern.length) source += escapeRegExp(pattern[++index]!);
    else if (char === "*") source += "[\\s\\S]*";
    else if (char === "?") source += "[\\s\\S]";
    else source += escapeRegExp(char);
  }
  return new RegExp(`^${source}$`).test(subject);
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\/-]/g, "\\$&");

/** A subject as a pattern that matches exactly it. */
const literalPattern = (subject: string) => subject.replace(/[\\*?]/g, "\\$&");

/** The oldest live rule of the thread or its tenant that approves this call, null when none does. */
export async function matchingRule(
  deps: RuntimeDeps,
  threadId: string,
  call: ToolCall,
): Promise<ApprovalRule | null> {
  const thread = await deps.store.threads.get(threadId);
  if (!thread) return null;
  const subject = callSubject(call.function.name, call.function.arguments);
  if (subject === null) return null;
  const rules = await deps.store.approvalRules.list(thread.tenantId, {
    threadId,
    toolName: call.function.name,
  });
  return rules.find((rule) => globMatches(rule.pattern, subject)) ?? null;
}

/**
 * The rule a person's "always" decision on a call asks for, checked before the decision is taken: the
 * call's tool, the given pattern or else the call's own subject exactly, for the call's thread or its
 * whole tenant. Only an approval makes a rule.
 */
export async function planRuleFromDecision(
  deps: RuntimeDeps,
  input: {
    agentId: string;
    callId: string;
    decision: "approve" | "deny";
    scope: "thread" | "tenant";
    pattern?: string | undefined;
  },
): Promise<NewApprovalRule> {
  const { store } = deps;
  if (input.decision !== "approve") {
    throw new LongrunError("bad_request", "only an approval makes a rule (rules approve, never deny)");
  }
  const approval = await store.approvals.get(input.agentId, input.callId);
  const thread = approval ? await store.threads.get(approval.threadId) : null;
  if (!approval || !thread)
    throw new LongrunError("not_found", `no pending approval for call ${input.callId}`);
  const subject = callSubject(approval.toolName, approval.arguments);
  const pattern = input.pattern ?? (subject === null ? null : literalPattern(subject));
  if (pattern === null) {
    throw new LongrunError(
      "bad_request",
      `a ${approval.toolName} call has no command or path to match: give the rule a pattern`,
    );
  }
  return {
    tenantId: thread.tenantId,
    threadId: input.scope === "thread" ? thread.id : null,
    toolName: approval.toolName,
    pattern,
    fromCall: `${input.agentId}/${input.callId}`,
  };
}

/**
 * Decides a just-requested approval by a rule, in the request's transaction: the decision names the
 * rule, and its `approval.resolved` event (with `ruleId`, the tool and its arguments) is the only one,
 * since no person was asked.
 */
export async function approveByRule(
  unit: UnitOfWork,
  announce: Announce,
  where: { threadId: string; agentId: string; runId: string },
  call: ToolCall,
  rule: ApprovalRule,
): Promise<Approval> {
  const reason = `approved by rule ${rule.id} (${rule.scope}: ${rule.toolName} ${rule.pattern})`;
  const decided = await unit.decideApproval({
    agentId: where.agentId,
    callId: call.id,
    decision: "approve",
    reason,
  });
  if (!decided.ok) throw new LongrunError("conflict", `call ${call.id} was decided while it was requested`);
  announce({
    ...where,
    type: "approval.resolved",
    data: {
      callId: call.id,
      decision: "approve",
      reason,
      ruleId: rule.id,
      name: call.function.name,
      arguments: call.function.arguments,
    },
  });
  return decided.approval;
}
