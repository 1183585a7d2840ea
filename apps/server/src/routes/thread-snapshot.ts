import type { AgentActivity, LongrunEvent, ThreadSnapshot } from "@longrun/protocol";
import type { ServerDeps } from "../server-deps.ts";
import { threadDetail } from "./thread-detail.ts";

/**
 * The thread as it stands at its head seq: detail (agents, runs), what each agent is doing now and
 * the undecided approvals. The head is read first, so everything read after it is at least as new:
 * a client applying the events after `headSeq` misses nothing (an event it already reflects applies
 * idempotently).
 */
export async function threadSnapshot(deps: ServerDeps, threadId: string): Promise<ThreadSnapshot> {
  const headSeq = await deps.store.events.head(threadId);
  const [thread, latest, approvals] = await Promise.all([
    threadDetail(deps, threadId),
    deps.store.events.latestByKind(threadId),
    deps.store.approvals.listByThread(threadId),
  ]);
  const waiting = new Set(
    thread.agents.filter((agent) => agent.status === "waiting_approval").map((agent) => agent.id),
  );
  return {
    thread,
    headSeq,
    activity: thread.agents.map((agent) => agentActivity(agent.id, latest)),
    // A call left undecided by a cancelled run waits for nobody: only agents parked on a decision count.
    approvals: approvals.filter((approval) => approval.decision === null && waiting.has(approval.agentId)),
    at: deps.runtime.now(),
  };
}

/** What one agent is doing, from the newest event of each kind. */
export function agentActivity(agentId: string, latest: readonly LongrunEvent[]): AgentActivity {
  const own = latest.filter((event) => event.agentId === agentId);
  const find = <Type extends LongrunEvent["type"]>(type: Type) =>
    own.find((event): event is Extract<LongrunEvent, { type: Type }> => event.type === type);
  const measured = find("context.measured");
  const started = find("tool.started");
  const completed = find("tool.completed");
  const status = find("agent.status");
  const compacted = find("compaction.completed");
  const last = own[own.length - 1];
  const toolOpen = started && (!completed || completed.seq < started.seq);
  return {
    agentId,
    step: measured?.data.step ?? null,
    tokens: measured?.data.projectedTokens ?? null,
    maxInputTokens: measured?.data.maxInputTokens ?? null,
    triggerTokens: measured?.data.triggerTokens ?? null,
    measuredSeq: measured?.seq ?? null,
    measurement: measured ? { ...measured.data, seq: measured.seq, at: measured.at } : null,
    compacted: compacted
      ? { tokensAfter: compacted.data.tokensAfter, seq: compacted.seq, at: compacted.at }
      : null,
    tool:
      toolOpen && started
        ? { callId: started.data.callId, name: started.data.name, startedAt: started.at }
        : null,
    statusSince: status?.at ?? null,
    lastEventAt: last?.at ?? null,
    lastEventType: last?.type ?? null,
  };
}

/**
 * Per thread of a tenant: undecided approvals of agents parked on them, and stuck runs of `threadIds`
 * (the threads listed). Both come from small sets, never from a scan of the threads' logs, and never
 * from other tenants' runs: a tenant with hundreds of runs under way must not slow another's list.
 */
export async function threadAttention(
  deps: ServerDeps,
  tenantId: string,
  threadIds: readonly string[],
): Promise<{ approvals: Map<string, number>; stuck: Map<string, number> }> {
  const [pending, stuck] = await Promise.all([
    deps.store.approvals.forTenant(tenantId, { pending: true, limit: 1000 }),
    deps.store.runs.stuckByThread(threadIds),
  ]);
  const approvals = new Map<string, number>();
  const agentIds = [...new Set(pending.map((approval) => approval.agentId))];
  const agents = await Promise.all(agentIds.map((agentId) => deps.store.agents.get(agentId)));
  const waiting = new Set(
    agents.flatMap((agent) => (agent?.status === "waiting_approval" ? [agent.id] : [])),
  );
  for (const approval of pending) {
    if (!waiting.has(approval.agentId)) continue;
    approvals.set(approval.threadId, (approvals.get(approval.threadId) ?? 0) + 1);
  }
  return { approvals, stuck };
}
