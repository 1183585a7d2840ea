import type { LongrunEvent } from "@longrun/protocol";
import { agentOf, applyCompaction } from "./apply-compaction-events.ts";
import { applyRun } from "./apply-run-events.ts";
import { Draft } from "./draft.ts";
import type { Measurement, ThreadState } from "./thread-state.ts";
import { trackActivity } from "./track-activity.ts";

/**
 * Applies events to a thread state. Persisted events are keyed by seq, so replaying any of them again
 * (a resumed subscription, a REST page overlapping the socket) changes nothing. Token deltas are not
 * persisted and carry no seq of their own; they only feed the streaming preview.
 */
export function applyEvents(state: ThreadState, events: readonly LongrunEvent[]): ThreadState {
  const fresh = events.filter(
    (event) =>
      event.threadId === state.threadId &&
      (event.type === "message.delta" || !state.appliedSeqs.has(event.seq)),
  );
  if (fresh.length === 0) return state;
  const draft = new Draft(state);
  const applied = state.appliedSeqs.copy();
  for (const event of fresh) {
    let history = false;
    if (event.type !== "message.delta") {
      if (applied.has(event.seq)) continue;
      applied.add(event.seq);
      draft.next.lastSeq = Math.max(draft.next.lastSeq, event.seq);
      draft.next.lastActivityAt = Math.max(draft.next.lastActivityAt ?? 0, event.at);
      history = state.snapshotSeq !== null && event.seq <= state.snapshotSeq;
      if (!history && event.agentId) trackActivity(draft, event);
    }
    applyOne(draft, event, history);
  }
  draft.next.appliedSeqs = applied;
  return draft.finish();
}

/**
 * Applies one event. `history`: the event is at or below the snapshot's head, so the snapshot already
 * says where the statuses it touches ended up; it only fills in what the snapshot does not carry.
 */
function applyOne(draft: Draft, event: LongrunEvent, history: boolean): void {
  const agentId = agentOf(event);
  switch (event.type) {
    case "thread.created":
      draft.next.title = event.data.title;
      return;
    case "thread.status":
      if (!history) draft.next.status = event.data.status;
      return;
    case "run.queued":
    case "run.started":
    case "run.completed":
    case "run.failed":
    case "run.cancelled":
    case "run.interrupt_requested":
    case "run.stuck":
    case "run.resumed":
      applyRun(draft, event, history);
      return;
    case "agent.spawned": {
      const agents = draft.record("agents");
      const known = agents[agentId];
      agents[agentId] = {
        id: agentId,
        parentAgentId: event.data.parentAgentId,
        name: event.data.name,
        inherit: event.data.inherit,
        status: known?.status ?? "idle",
        createdAt: known?.createdAt ?? event.at,
        ...(event.data.brief === undefined ? {} : { brief: event.data.brief }),
        // Links the parent's spawn_agents call to its reports, whether the snapshot or the event came first.
        spawnCallId: event.data.spawnCallId ?? known?.spawnCallId ?? null,
      };
      return;
    }
    case "agent.status": {
      const agents = draft.record("agents");
      if (history && agents[agentId]) return;
      const known = agents[agentId] ?? placeholderAgent(agentId, event.at);
      agents[agentId] = {
        ...known,
        status: event.data.status,
        statusSeq: event.seq,
        ...(event.data.reason === undefined ? {} : { statusReason: event.data.reason }),
        statusUntil: event.data.until,
      };
      return;
    }
    case "message.delta": {
      const streaming = draft.record("streaming");
      const current = streaming[agentId];
      const messageId = event.data.messageId ?? null;
      const continues = current !== undefined && (messageId === null || current.messageId === messageId);
      streaming[agentId] = { messageId, text: (continues ? current.text : "") + event.data.text };
      return;
    }
    case "message.completed": {
      const data = event.data;
      draft.putMessage(agentId, {
        id: data.messageId,
        agentId,
        seq: data.seq,
        role: data.role,
        content: data.content,
        at: event.at,
        ...(data.toolCalls ? { toolCalls: data.toolCalls } : {}),
        ...(data.toolCallId ? { toolCallId: data.toolCallId } : {}),
        ...(data.toolStatus ? { toolStatus: data.toolStatus } : {}),
        ...(data.usage ? { usage: data.usage } : {}),
      });
      if (data.role === "assistant") delete draft.record("streaming")[agentId];
      return;
    }
    case "tool.started": {
      // History read after a live completion must not make the call look running again.
      const known = draft.tool(event.data.callId);
      if (known && known.status !== "running") return;
      draft.putTool({
        callId: event.data.callId,
        agentId: event.agentId ?? null,
        name: event.data.name,
        arguments: event.data.arguments,
        status: "running",
      });
      return;
    }
    case "tool.completed": {
      draft.putTool({
        callId: event.data.callId,
        agentId: event.agentId ?? null,
        name: event.data.name,
        arguments: draft.tool(event.data.callId)?.arguments ?? "",
        status: event.data.status,
        output: event.data.output,
      });
      return;
    }
    case "approval.requested":
      // The snapshot lists the calls still undecided; an older request is decided or abandoned.
      if (history) return;
      draft.record("approvals")[event.data.callId] = {
        callId: event.data.callId,
        agentId: event.agentId ?? null,
        runId: event.runId ?? null,
        name: event.data.name,
        arguments: event.data.arguments,
        requestedAt: event.at,
      };
      return;
    case "approval.resolved":
      delete draft.record("approvals")[event.data.callId];
      draft.record("decisions")[`${agentId}:${event.data.callId}`] = {
        decision: event.data.decision,
        eventSeq: event.seq,
        ...(event.data.reason === undefined ? {} : { reason: event.data.reason }),
        ...(event.data.ruleId === undefined ? {} : { ruleId: event.data.ruleId }),
      };
      return;
    case "context.measured": {
      const current = draft.next.measurements[agentId] ?? [];
      const last = current[current.length - 1];
      const inOrder = last === undefined || last.eventSeq < event.seq;
      // The snapshot seeds the latest measurement; the same one read again from the log is one point.
      if (!inOrder && current.some((point) => point.eventSeq === event.seq)) return;
      // One copy of the series per batch, added to in place: not a copy (or a sort) per measurement.
      const real = draft.agentMeasurements(agentId);
      insertMeasurement(real, { eventSeq: event.seq, at: event.at, ...event.data });
      // A snapshot taken at an old step-0 measurement learns the step reached once history is read.
      const reached = real[real.length - 1]?.step ?? null;
      const activity = draft.record("activity");
      const now = activity[agentId];
      if (now && reached !== null && (now.step ?? Number.NEGATIVE_INFINITY) < reached) {
        activity[agentId] = { ...now, step: reached };
      }
      return;
    }
    case "compaction.started":
    case "compaction.completed":
    case "compaction.failed":
    case "compaction.skipped":
      applyCompaction(draft, event);
      return;
    case "compaction.prepared":
      // Background work: it changes nothing on screen until a compaction applies it.
      return;
    case "reasoning.dropped":
      // The step went on without its stale reasoning: nothing on screen changes.
      return;
    case "breaker.opened":
      draft.record("breakers")[agentId] = {
        state: "open",
        failures: event.data.failures,
        openUntil: event.data.openUntil,
      };
      return;
    case "breaker.closed":
      draft.record("breakers")[agentId] = { state: "closed", failures: event.data.failures };
      return;
    default: {
      // A type added to the protocol later is ignored here rather than breaking the page.
      const exhaustive: never = event;
      void exhaustive;
    }
  }
}

function placeholderAgent(agentId: string, at: number): ThreadState["agents"][string] {
  return { id: agentId, parentAgentId: null, name: agentId, status: "idle", inherit: "fresh", createdAt: at };
}

/**
 * An agent's step is the seq of its last logged fact and never goes back. Measurements recorded before
 * the runtime fix reported step 0 right after a compaction that left no fact past its boundary; they
 * are shown at the step reached so far (the log did not move during the compaction). Adds a point to a
 * series in event order whose steps never go back, keeping it so: in order (the usual case) only the new
 * point is checked; out of order (history read after the snapshot's point), the points after it too.
 */
export function insertMeasurement(series: Measurement[], point: Measurement): void {
  let low = 0;
  let high = series.length;
  while (low < high) {
    const middle = (low + high) >> 1;
    if ((series[middle]?.eventSeq ?? 0) < point.eventSeq) low = middle + 1;
    else high = middle;
  }
  const before = series[low - 1];
  series.splice(
    low,
    0,
    before !== undefined && point.step < before.step ? { ...point, step: before.step } : point,
  );
  for (let index = low + 1; index < series.length; index++) {
    const reached = series[index - 1]!.step;
    const known = series[index]!;
    if (known.step >= reached) break;
    series[index] = { ...known, step: reached };
  }
}
