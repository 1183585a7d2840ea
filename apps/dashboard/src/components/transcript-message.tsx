import { memo, useState } from "react";
import { clip, formatTokens, textOf } from "../lib/format.ts";
import type { AgentNode, ThreadState, TranscriptMessage } from "../state/thread-state.ts";
import type { ToolCalls } from "../state/tool-calls.ts";
import { FromHere, type TimeTravel } from "./from-here.tsx";
import { ToolCallBlock } from "./tool-call-block.tsx";

const TEXT_LIMIT = 4000;

/**
 * One message of the transcript; an assistant's tool calls are shown with their results. A message a
 * compaction took out of the model's context is greyed and says so.
 */
export const TranscriptMessageView = memo(function TranscriptMessageView({
  message,
  results,
  tools,
  compacted,
  decisions,
  spawned,
  onSelectAgent,
  travel = null,
}: {
  message: TranscriptMessage;
  results: Record<string, TranscriptMessage>;
  tools: ToolCalls;
  compacted: boolean;
  decisions: ThreadState["decisions"];
  spawned: Record<string, AgentNode[]>;
  onSelectAgent: (agentId: string) => void;
  travel?: TimeTravel | null;
}) {
  const [expanded, setExpanded] = useState(false);
  const text = textOf(message.content);
  const shown = expanded ? { text, clipped: false } : clip(text, TEXT_LIMIT);
  return (
    <article
      className={`entry entry-${message.role}${compacted ? " entry-compacted" : ""}`}
      data-testid="transcript-entry"
      data-entry=""
      tabIndex={-1}
      data-message-id={message.id}
      data-role={message.role}
      data-seq={message.seq}
      data-compacted={compacted ? "true" : "false"}
      aria-label={`${message.role} message #${message.seq}${compacted ? ", no longer in the model's context" : ""}`}
    >
      <div className="entry-head">
        <span className="role">{message.role}</span>
        <span className="muted small">#{message.seq}</span>
        {compacted && (
          <span
            className="badge badge-compacted"
            title="A compaction summarized this message: the model no longer sees it verbatim"
          >
            summarized
          </span>
        )}
        {message.toolStatus && message.toolStatus !== "ok" && (
          <span className={`badge tool-${message.toolStatus}`}>{message.toolStatus}</span>
        )}
        {travel && (
          <FromHere point={{ atMessageId: message.id }} travel={travel} what={`message #${message.seq}`} />
        )}
        {message.usage && (
          <span className="muted small" title="provider usage of the request that produced this message">
            in {formatTokens(message.usage.promptTokens)} · out {formatTokens(message.usage.completionTokens)}
            {message.usage.cachedTokens
              ? ` · cached ${formatTokens(message.usage.cachedTokens)} (${cachedShare(message.usage)})`
              : ""}
          </span>
        )}
      </div>
      {text && <pre className="message-text">{shown.text}</pre>}
      {shown.clipped && (
        <button
          type="button"
          className="link small"
          data-testid="message-expand"
          onClick={() => setExpanded(true)}
        >
          Show all ({text.length} chars)
        </button>
      )}
      {(message.toolCalls ?? []).map((call) => (
        <ToolCallBlock
          key={call.id}
          callId={call.id}
          name={call.function.name}
          argumentsText={call.function.arguments}
          result={results[call.id] ?? null}
          activity={tools.get(call.id) ?? null}
          decision={decisions[`${message.agentId}:${call.id}`] ?? null}
          spawned={spawned[call.id] ?? []}
          onSelectAgent={onSelectAgent}
        />
      ))}
    </article>
  );
});

/** The share of the request's input the provider served from its prompt cache. */
function cachedShare(usage: { promptTokens: number; cachedTokens?: number | null }): string {
  if (!usage.promptTokens || !usage.cachedTokens) return "0 %";
  return `${Math.round((100 * usage.cachedTokens) / usage.promptTokens)} %`;
}
