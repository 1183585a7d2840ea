import type { Agent, Run, StoredMessage, ThreadDetail, ThreadSnapshot } from "@longrun/protocol";
import { insertMeasurement } from "./apply-events.ts";
import { Draft } from "./draft.ts";
import type { ThreadState } from "./thread-state.ts";

/**
 * Merges stored messages read over REST; the same message from an event is the same entry. `readFrom`:
 * the read that ends with these covered every message above that seq.
 */
export function applyMessages(
  state: ThreadState,
  agentId: string,
  messages: readonly StoredMessage[],
  readFrom?: number,
): ThreadState {
  const readBefore = state.messagesReadFrom[agentId];
  const widens = readFrom !== undefined && (readBefore === undefined || readFrom < readBefore);
  if (messages.length === 0 && !widens) return state;
  const draft = new Draft(state);
  if (widens) draft.record("messagesReadFrom")[agentId] = readFrom;
  for (const message of messages) {
    const known = draft.message(agentId, message.id);
    draft.putMessage(agentId, {
      id: message.id,
      agentId: message.agentId,
      seq: message.seq,
      role: message.role,
      content: message.content,
      at: known?.at ?? message.createdAt,
      ...(message.toolCalls ? { toolCalls: message.toolCalls } : {}),
      ...(message.toolCallId ? { toolCallId: message.toolCallId } : {}),
      ...(message.toolStatus ? { toolStatus: message.toolStatus } : {}),
      ...(message.usage ? { usage: message.usage } : {}),
    });
  }
  return draft.finish();
}

/** Merges a thread read over REST: agents, runs, status and title; events stay authoritative for status. */
export function applyThreadDetail(state: ThreadState, detail: ThreadDetail): ThreadState {
  const draft = new Draft(state);
  draft.next.title = detail.title;
  draft.next.restStatus = detail.status;
  draft.next.lastActivityAt = Math.max(state.lastActivityAt ?? 0, detail.updatedAt);
  const agents = draft.record("agents");
  for (const agent of detail.agents) agents[agent.id] = mergeAgent(agents[agent.id], agent);
  const runs = draft.record("runs");
  for (const run of detail.runs) runs[run.id] = mergeRun(runs[run.id], run);
  return draft.next;
}

/**
 * Merges one agent read over REST. `asOfSeq`: the read is a snapshot at that head, so its status wins
 * over any event at or below it; without it the read may be older than the events, and they win.
 */
function mergeAgent(known: ThreadState["agents"][string] | undefined, agent: Agent, asOfSeq?: number) {
  const eventIsNewer = known?.statusSeq !== undefined && (asOfSeq === undefined || known.statusSeq > asOfSeq);
  return {
    ...known,
    id: agent.id,
    parentAgentId: agent.parentAgentId,
    name: agent.name,
    inherit: agent.inherit,
    createdAt: agent.createdAt,
    spawnCallId: agent.spawnCallId,
    ...(agent.brief ? { brief: agent.brief } : {}),
    status: eventIsNewer && known ? known.status : agent.status,
  };
}

function mergeRun(known: ThreadState["runs"][string] | undefined, run: Run, authoritative = false) {
  const terminal = run.status === "completed" || run.status === "failed" || run.status === "cancelled";
  return {
    ...known,
    id: run.id,
    agentId: run.agentId,
    kind: run.kind,
    status: authoritative || terminal || !known ? run.status : known.status,
    at: run.finishedAt ?? run.startedAt ?? run.createdAt,
    createdAt: run.createdAt,
    ...(run.startedAt ? { startedAt: run.startedAt } : {}),
    ...(run.finishedAt ? { finishedAt: run.finishedAt } : {}),
    ...(run.error ? { error: run.error } : {}),
  };
}

/**
 * Merges a snapshot: the thread at `headSeq` with its agents' statuses, runs, what each agent is doing
 * and the undecided approvals. Events at or below `headSeq` read later only fill in history.
 */
export function applySnapshot(state: ThreadState, snapshot: ThreadSnapshot): ThreadState {
  const draft = new Draft(state);
  const { thread, headSeq } = snapshot;
  draft.next.title = thread.title;
  draft.next.restStatus = thread.status;
  // A thread.status event newer than the snapshot is still the truth; an older one is not.
  if (state.lastSeq <= headSeq) draft.next.status = null;
  draft.next.snapshotSeq = Math.max(state.snapshotSeq ?? 0, headSeq);
  draft.next.lastActivityAt = Math.max(state.lastActivityAt ?? 0, thread.updatedAt);
  const agents = draft.record("agents");
  for (const agent of thread.agents) agents[agent.id] = mergeAgent(agents[agent.id], agent, headSeq);
  const runs = draft.record("runs");
  for (const run of thread.runs) runs[run.id] = mergeRun(runs[run.id], run, state.lastSeq <= headSeq);
  const activity = draft.record("activity");
  const measurements = draft.record("measurements");
  for (const entry of snapshot.activity) {
    activity[entry.agentId] = {
      step: entry.step,
      tokens: entry.tokens,
      maxInputTokens: entry.maxInputTokens,
      tool: entry.tool,
      compacted: entry.compacted ?? null,
      statusSince: entry.statusSince,
      lastEventAt: entry.lastEventAt,
    };
    const measured = entry.measurement;
    const series = measurements[entry.agentId] ?? [];
    if (measured && !series.some((point) => point.eventSeq === measured.seq)) {
      const { seq, ...data } = measured;
      const next = [...series];
      insertMeasurement(next, { ...data, eventSeq: seq });
      measurements[entry.agentId] = next;
    }
  }
  const approvals: ThreadState["approvals"] = {};
  for (const approval of snapshot.approvals) {
    approvals[approval.callId] = {
      callId: approval.callId,
      agentId: approval.agentId,
      runId: null,
      name: approval.toolName,
      arguments: approval.arguments,
      requestedAt: approval.requestedAt,
    };
  }
  // Requests announced after the snapshot's head stay; the snapshot replaces everything older.
  for (const request of Object.values(state.approvals)) {
    if (!approvals[request.callId] && request.requestedAt > snapshot.at) approvals[request.callId] = request;
  }
  draft.next.approvals = approvals;
  return draft.next;
}

/** Marks the events before the snapshot as all read: the chart and notices are complete. */
export function markHistoryLoaded(state: ThreadState): ThreadState {
  return state.historyLoaded ? state : { ...state, historyLoaded: true };
}

/** Drops half-streamed text, e.g. when the socket drops and the deltas in flight are lost. */
export function clearStreaming(state: ThreadState): ThreadState {
  return Object.keys(state.streaming).length === 0 ? state : { ...state, streaming: {} };
}
