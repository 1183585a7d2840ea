import { memo, useState } from "react";
import { clip, formatTokens, textOf } from "../lib/format.ts";
import type { ToolActivity, TranscriptMessage } from "../state/thread-state.ts";
import { ToolCallBlock } from "./tool-call-block.tsx";

const TEXT_LIMIT = 4000;

/** One message of the transcript; an assistant's tool calls are shown with their results. */
export const TranscriptMessageView = memo(function TranscriptMessageView({
  message,
  results,
  tools,
}: {
  message: TranscriptMessage;
  results: Record<string, TranscriptMessage>;
  tools: Record<string, ToolActivity>;
}) {
  const [expanded, setExpanded] = useState(false);
  const text = textOf(message.content);
  const shown = expanded ? { text, clipped: false } : clip(text, TEXT_LIMIT);
  return (
    <article
      className={`entry entry-${message.role}`}
      data-testid="transcript-entry"
      data-message-id={message.id}
      data-role={message.role}
      data-seq={message.seq}
    >
      <div className="entry-head">
        <span className="role">{message.role}</span>
        <span className="muted small">#{message.seq}</span>
        {message.toolStatus && message.toolStatus !== "ok" && (
          <span className={`badge tool-${message.toolStatus}`}>{message.toolStatus}</span>
        )}
        {message.usage && (
          <span className="muted small" title="provider usage of the request that produced this message">
            in {formatTokens(message.usage.promptTokens)} · out {formatTokens(message.usage.completionTokens)}
            {message.usage.cachedTokens ? ` · cached ${formatTokens(message.usage.cachedTokens)}` : ""}
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
          activity={tools[call.id] ?? null}
        />
      ))}
    </article>
  );
});
