import { clipLine } from "@longrun/compaction";
import type { LongrunEvent, MessageContent } from "@longrun/protocol";

const WIDTH = 100;

/** One line of at most `max` characters: whitespace folded, the rest cut with an ellipsis. */
const clip = (text: string, max = WIDTH): string => clipLine(text, max);

function textOf(content: MessageContent): string {
  if (content === null) return "";
  if (typeof content === "string") return content;
  return content.map((part) => (part.type === "text" ? part.text : "[image]")).join(" ");
}

const tokens = (count: number) => `${count.toLocaleString("en-US")} tokens`;

function percent(part: number, whole: number): string {
  return whole > 0 ? `${Math.round((part / whole) * 100)} %` : "0 %";
}

/** What one event says, in words; null for live token deltas (not persisted, never replayed). */
function describeEvent(event: LongrunEvent): string | null {
  switch (event.type) {
    case "thread.created":
      return `thread created: ${clip(event.data.title, 60)} (model ${event.data.model})`;
    case "thread.status":
      return `thread ${event.data.status}`;
    case "run.queued":
      return `run queued (${event.data.kind}, position ${event.data.position})`;
    case "run.started":
      return `run started (${event.data.kind})`;
    case "run.completed":
      return `run completed${event.data.report ? `: ${clip(event.data.report, 80)}` : ""}`;
    case "run.failed":
      return `run failed: ${event.data.error.code}: ${clip(event.data.error.message, 80)}`;
    case "run.cancelled":
      return `run cancelled${event.data.reason ? `: ${event.data.reason}` : ""}`;
    case "run.interrupt_requested":
      return "run stops at its next step (interrupted by a new message)";
    case "run.stuck":
      return `run stuck: ${event.data.reason}`;
    case "run.resumed":
      return `run resumed${event.data.reason ? `: ${event.data.reason}` : ""}`;
    case "agent.spawned":
      return `agent spawned: ${event.data.name} (${event.data.inherit})${event.data.brief ? `: ${clip(event.data.brief, 60)}` : ""}`;
    case "agent.status":
      return `agent ${event.data.status}${event.data.reason ? `: ${clip(event.data.reason, 80)}` : ""}`;
    case "message.delta":
      return null;
    case "message.completed": {
      const { role, content, toolCalls, toolStatus } = event.data;
      if (role === "tool") return `tool result (${toolStatus ?? "ok"}): ${clip(textOf(content), 80)}`;
      const calls = toolCalls?.length ? ` [${toolCalls.map((call) => call.function.name).join(", ")}]` : "";
      return `${role}: ${clip(textOf(content), 80) || "(no text)"}${calls}`;
    }
    case "tool.started":
      return `tool ${event.data.name} ${clip(event.data.arguments, 80)}`;
    case "tool.completed":
      return `tool ${event.data.name} → ${event.data.status} (${event.data.output.length} chars)`;
    case "approval.requested":
      return `approval needed: ${event.data.name} ${clip(event.data.arguments, 60)} (call ${event.data.callId})`;
    case "approval.resolved":
      return `approval ${event.data.decision === "approve" ? "approved" : "denied"} (call ${event.data.callId})${event.data.reason ? `: ${event.data.reason}` : ""}`;
    case "context.measured": {
      const { step, rawTokens, projectedTokens, maxInputTokens } = event.data;
      const limit = maxInputTokens ? ` of ${tokens(maxInputTokens)}` : "";
      return `step ${step}: context ${tokens(projectedTokens)}${limit} (raw ${tokens(rawTokens)})${event.data.needsCompaction ? ", needs compaction" : ""}`;
    }
    case "compaction.started":
      return `compaction started (${event.data.trigger}, ${tokens(event.data.tokensBefore)})`;
    case "compaction.completed": {
      const { tokensBefore, tokensAfter, strategy, trigger } = event.data;
      const saved = tokensBefore - tokensAfter;
      const prepared = event.data.prepared ? ", summary prepared in the background" : "";
      return `compaction ${strategy} (${trigger}): ${tokens(tokensBefore)} → ${tokens(tokensAfter)}, saved ${tokens(saved)} (${percent(saved, tokensBefore)})${prepared}`;
    }
    case "compaction.prepared":
      return event.data.outcome === "ready"
        ? `background summary ready (at ${tokens(event.data.tokensAt)})`
        : `background summary failed: ${clip(event.data.reason ?? "", 80)}`;
    case "compaction.failed":
      return `compaction failed: ${clip(event.data.reason, 80)}${event.data.contextExhausted ? " (context exhausted)" : ""}`;
    case "compaction.skipped":
      return `compaction skipped: ${clip(event.data.reason, 80)}`;
    case "breaker.opened":
      return `breaker opened after ${event.data.failures} failures (cooldown ${Math.round(event.data.cooldownMs / 1000)} s)`;
    case "breaker.closed":
      return "breaker closed";
    case "reasoning.dropped":
      return `reasoning dropped from ${event.data.messages} messages and the request sent again: ${clip(event.data.reason, 80)}`;
    default: {
      const exhaustive: never = event;
      return `event ${(exhaustive as { type: string }).type}`;
    }
  }
}

/**
 * The terminal line of one persisted event: `#seq HH:MM:SS agent  text`, the agent by name once its
 * `agent.spawned` was seen, else by the end of its id. Null for events that are not shown.
 */
export function eventLine(event: LongrunEvent, agentNames: ReadonlyMap<string, string>): string | null {
  const text = describeEvent(event);
  if (text === null) return null;
  const time = new Date(event.at).toISOString().slice(11, 19);
  const agent = event.agentId ? (agentNames.get(event.agentId) ?? event.agentId.slice(-6)) : "-";
  return `#${event.seq} ${time} ${agent.padEnd(8)} ${text}`;
}
