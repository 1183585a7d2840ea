import type { LongrunEvent } from "@longrun/protocol";
import type { Draft } from "./draft.ts";

const AT_REST = new Set(["idle", "completed", "failed", "cancelled", "context_exhausted"]);

/** Keeps "what is this agent doing now" current from live events (never from history). */
export function trackActivity(draft: Draft, event: LongrunEvent): void {
  const agentId = event.agentId ?? "unknown";
  const activity = draft.record("activity");
  const known = activity[agentId] ?? {
    step: null,
    tokens: null,
    maxInputTokens: null,
    tool: null,
    statusSince: null,
    lastEventAt: null,
  };
  const next = { ...known, lastEventAt: Math.max(known.lastEventAt ?? 0, event.at) };
  switch (event.type) {
    case "context.measured":
      // Steps only grow: an old measurement that reported 0 after a compaction keeps the step reached.
      next.step = Math.max(known.step ?? event.data.step, event.data.step);
      next.tokens = event.data.projectedTokens;
      next.maxInputTokens = event.data.maxInputTokens;
      break;
    case "compaction.completed":
      if ((known.compacted?.seq ?? -1) < event.seq)
        next.compacted = { tokensAfter: event.data.tokensAfter, seq: event.seq, at: event.at };
      break;
    case "tool.started":
      next.tool = { callId: event.data.callId, name: event.data.name, startedAt: event.at };
      break;
    case "tool.completed":
      if (known.tool?.callId === event.data.callId) next.tool = null;
      break;
    case "agent.status":
      next.statusSince = event.at;
      if (AT_REST.has(event.data.status)) next.tool = null;
      break;
    case "run.completed":
    case "run.failed":
    case "run.cancelled":
      next.tool = null;
      break;
    default:
      break;
  }
  activity[agentId] = next;
}
