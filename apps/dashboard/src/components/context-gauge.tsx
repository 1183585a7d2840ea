import { formatTokens } from "../lib/format.ts";
import type { ThreadState } from "../state/thread-state.ts";
import { compactionNotices } from "../state/transcript.ts";
import { TokenChart } from "./token-chart.tsx";

/** Tokens in the projection against the window and the trigger line, plus tokens over steps. */
export function ContextGauge({
  thread,
  agentId,
  onPickStep,
}: {
  thread: ThreadState;
  agentId: string;
  onPickStep?: (step: number) => void;
}) {
  const series = thread.measurements[agentId] ?? [];
  const latest = series[series.length - 1];
  const notices = compactionNotices(thread, agentId);
  // A compaction newer than the last measurement (e.g. /compact between turns) sets the current size.
  const lastCompaction = [...notices].reverse().find((notice) => notice.phase === "completed");
  const afterCompaction =
    latest && lastCompaction?.tokensAfter !== undefined && lastCompaction.eventSeq > latest.eventSeq;
  const tokens = afterCompaction ? (lastCompaction?.tokensAfter ?? 0) : (latest?.projectedTokens ?? 0);
  const max = latest?.maxInputTokens ?? null;
  const scale = Math.max(max ?? 0, latest?.triggerTokens ?? 0, tokens, 1);
  const percent = (value: number) => `${Math.min(100, (value / scale) * 100).toFixed(1)}%`;
  const level = !latest
    ? "empty"
    : tokens >= (max ?? Number.POSITIVE_INFINITY)
      ? "over"
      : (!afterCompaction && latest.needsCompaction) || tokens >= latest.triggerTokens
        ? "trigger"
        : "ok";
  const saved = latest ? latest.saved.collapse + latest.saved.truncate + latest.saved.microcompact : 0;
  return (
    <section
      className="panel context-gauge"
      data-testid="context-gauge"
      data-tokens={latest ? tokens : ""}
      data-max={max ?? ""}
      data-trigger={latest?.triggerTokens ?? ""}
      data-level={level}
    >
      <h2>Context</h2>
      {!latest ? (
        <p className="muted">No measurement yet: it comes before the agent's next model call.</p>
      ) : (
        <>
          <div className="gauge-figures">
            <strong>{formatTokens(tokens)}</strong>
            <span className="muted"> / {max ? formatTokens(max) : "unknown window"} tokens</span>
            <span className="muted small">
              {" "}
              · trigger {formatTokens(latest.triggerTokens)}
              {afterCompaction ? " · after compaction" : ` · raw history ${formatTokens(latest.rawTokens)}`}
            </span>
          </div>
          <div
            className={`gauge-bar level-${level}`}
            role="progressbar"
            aria-label="Tokens in the context window"
            aria-valuemin={0}
            aria-valuemax={max ?? scale}
            aria-valuenow={tokens}
            aria-valuetext={`${formatTokens(tokens)} of ${max ? formatTokens(max) : "an unknown window"} tokens; compaction at ${formatTokens(latest.triggerTokens)}`}
          >
            <div className="gauge-fill" style={{ width: percent(tokens) }} />
            <div
              className="gauge-trigger"
              style={{ left: percent(latest.triggerTokens) }}
              title={`compaction trigger: ${latest.triggerTokens} tokens`}
            />
          </div>
          {saved > 0 && (
            <p className="muted small" data-testid="gauge-savings">
              Deterministic stages saved {formatTokens(saved)}: collapse {formatTokens(latest.saved.collapse)}
              , truncate {formatTokens(latest.saved.truncate)}, microcompact{" "}
              {formatTokens(latest.saved.microcompact)}
            </p>
          )}
          <TokenChart measurements={series} compactions={notices} {...(onPickStep ? { onPickStep } : {})} />
        </>
      )}
    </section>
  );
}
