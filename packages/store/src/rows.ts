import type { Row } from "@libsql/client";
import type { Approval, ModelProfile, Thread } from "@longrun/protocol";
import type { AgentRecord } from "./agents.ts";
import type { RunRecord } from "./runs.ts";

/** JSON text for a column, null for absent values. */
export const json = (value: unknown): string | null =>
  value === undefined || value === null ? null : JSON.stringify(value);

/** A JSON column's value, null for SQL NULL. */
export const parsed = <T>(value: unknown): T | null =>
  typeof value === "string" ? (JSON.parse(value) as T) : null;

export const textOrNull = (value: unknown): string | null => (typeof value === "string" ? value : null);
export const numberOrNull = (value: unknown): number | null =>
  value === null || value === undefined ? null : Number(value);

/** A raw `threads` row. */
export function threadFromRow(row: Row): Thread {
  return {
    id: String(row.id),
    tenantId: String(row.tenant_id),
    title: String(row.title),
    workspaceDir: String(row.workspace_dir),
    modelProfile: JSON.parse(String(row.model_profile)) as ModelProfile,
    status: String(row.status) as Thread["status"],
    forkedFromThreadId: textOrNull(row.forked_from_thread_id),
    rewoundToThreadId: textOrNull(row.rewound_to_thread_id),
    createdAt: Number(row.created_at),
    updatedAt: Number(row.updated_at),
  };
}

/** A raw `agents` row in the protocol shape plus its fence. */
export function agentFromRow(row: Row): AgentRecord {
  return {
    id: String(row.id),
    threadId: String(row.thread_id),
    parentAgentId: textOrNull(row.parent_agent_id),
    name: String(row.name),
    inherit: String(row.inherit) as AgentRecord["inherit"],
    forkMessageId: textOrNull(row.fork_message_id),
    forkCompactionId: textOrNull(row.fork_compaction_id),
    forkSourceAgentId: textOrNull(row.fork_source_agent_id),
    brief: textOrNull(row.brief),
    spawnCallId: textOrNull(row.spawn_call_id),
    status: String(row.status) as AgentRecord["status"],
    fence: Number(row.fence),
    createdAt: Number(row.created_at),
  };
}

/** A raw `runs` row. */
export function runFromRow(row: Row): RunRecord {
  return {
    id: String(row.id),
    threadId: String(row.thread_id),
    agentId: String(row.agent_id),
    kind: String(row.kind) as RunRecord["kind"],
    status: String(row.status) as RunRecord["status"],
    error: parsed<RunRecord["error"]>(row.error),
    parentRunId: textOrNull(row.parent_run_id),
    jobId: textOrNull(row.job_id),
    input: textOrNull(row.input),
    interruptRequestedAt: numberOrNull(row.interrupt_requested_at),
    createdAt: Number(row.created_at),
    startedAt: numberOrNull(row.started_at),
    finishedAt: numberOrNull(row.finished_at),
  };
}

/** A raw `approvals` row. */
export function approvalFromRow(row: Row): Approval {
  const approval: Approval = {
    agentId: String(row.agent_id),
    callId: String(row.call_id),
    threadId: String(row.thread_id),
    messageId: String(row.message_id),
    toolName: String(row.tool_name),
    arguments: String(row.arguments),
    requestedAt: Number(row.requested_at),
    decision: (textOrNull(row.decision) as Approval["decision"]) ?? null,
    reason: textOrNull(row.reason),
    decidedAt: numberOrNull(row.decided_at),
  };
  return approval;
}
