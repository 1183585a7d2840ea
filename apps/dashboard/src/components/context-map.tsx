import type { ContextView } from "@longrun/protocol";
import { formatTokens } from "../lib/format.ts";

const LABELS = {
  system: "system prompt",
  tools: "tool definitions",
  pinned: "pinned task",
  summary: "summary",
  ledger: "working-state ledger",
  restored: "restored files and plan",
  recent: "recent messages",
} as const;

/**
 * The next request as one bar split into what it is made of, each part with its tokens, from the parts
 * the server computed from its projection (GET /v1/agents/:id/context); the bar's length is the window.
 */
export function ContextMap({ view }: { view: ContextView }) {
  const parts = view.parts ?? [];
  if (parts.length === 0) return null;
  const sum = parts.reduce((total, part) => total + part.tokens, 0);
  const scale = Math.max(view.maxInputTokens ?? 0, sum, 1);
  const describe = parts.map((part) => `${LABELS[part.part]} ${formatTokens(part.tokens)}`).join(", ");
  return (
    <figure className="context-map" data-testid="context-map" data-sum={sum}>
      <div
        className="context-map-bar"
        role="img"
        aria-label={`Next request: ${describe}${view.maxInputTokens ? ` of a ${formatTokens(view.maxInputTokens)} window` : ""}`}
      >
        {parts.map((part) => (
          <span
            key={part.part}
            className={`map-part map-${part.part}`}
            data-testid="context-map-part"
            data-part={part.part}
            data-tokens={part.tokens}
            style={{ width: `${((part.tokens / scale) * 100).toFixed(2)}%` }}
            title={`${LABELS[part.part]}: ${part.tokens} tokens`}
          />
        ))}
      </div>
      <figcaption>
        <ul className="context-map-legend small">
          {parts.map((part) => (
            <li key={part.part}>
              <span className={`map-swatch map-${part.part}`} aria-hidden="true" />
              {LABELS[part.part]} <strong>{formatTokens(part.tokens)}</strong>
              {part.messages > 1 ? <span className="muted"> ({part.messages} messages)</span> : null}
            </li>
          ))}
        </ul>
        {view.tokens > sum && (
          <p className="muted small">
            The request measures {formatTokens(view.tokens)}: the provider's reported usage counts{" "}
            {formatTokens(view.tokens - sum)} more than these estimates.
          </p>
        )}
      </figcaption>
    </figure>
  );
}
