import type { Agent, Run, StoredMessage, ThreadDetail } from "@longrun/protocol";
import { Draft } from "./draft.ts";
import type { ThreadState } from "./thread-state.ts";

/** Merges stored messages read over REST; the same message from an event is the same entry. */
export function applyMessages(
  state: ThreadState,
  agentId: string,
  messages: readonly StoredMessage[],
): ThreadState {
  if (messages.length === 0) return state;
  const draft = new Draft(state);
  const target = draft.agentMessages(agentId);
  for (const message of messages) {
    const known = target[message.id];
    target[message.id] = {
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
    };
  }
  return draft.next;
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

function mergeAgent(known: ThreadState["agents"][string] | undefined, agent: Agent) {
  return {
    ...known,
    id: agent.id,
    parentAgentId: agent.parentAgentId,
    name: agent.name,
    inherit: agent.inherit,
    createdAt: agent.createdAt,
    ...(agent.brief ? { brief: agent.brief } : {}),
    // The REST read may be older than the events already applied; a status from an event wins.
    status: known?.statusSeq !== undefined ? known.status : agent.status,
  };
}

function mergeRun(known: ThreadState["runs"][string] | undefined, run: Run) {
  const terminal = run.status === "completed" || run.status === "failed" || run.status === "cancelled";
  return {
    ...known,
    id: run.id,
    agentId: run.agentId,
    kind: run.kind,
    status: terminal || !known ? run.status : known.status,
    at: run.finishedAt ?? run.startedAt ?? run.createdAt,
    ...(run.error ? { error: run.error } : {}),
  };
}

/** Drops half-streamed text, e.g. when the socket drops and the deltas in flight are lost. */
export function clearStreaming(state: ThreadState): ThreadState {
  return Object.keys(state.streaming).length === 0 ? state : { ...state, streaming: {} };
}
