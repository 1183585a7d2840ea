import { formatTokens } from "../lib/format.ts";
import { compactionNotices } from "../state/removed-ranges.ts";
import type { Measurement, ThreadState } from "../state/thread-state.ts";
import { tokenFigure, tokenFigureAsOf } from "../state/token-figure.ts";
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
  // One figure with the agent card: a compaction newer than the last measurement (e.g. /compact between
  // turns) sets the current size.
  const figure = tokenFigure(thread, agentId);
  const notices = compactionNotices(thread, agentId);
  const afterCompaction = figure?.source === "compacted";
  const tokens = figure?.tokens ?? 0;
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
      data-token-seq={figure?.seq ?? ""}
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
              {afterCompaction ? "" : ` · raw history ${formatTokens(latest.rawTokens)}`}
              {figure && <span data-testid="token-as-of"> · {tokenFigureAsOf(figure)}</span>}
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
          {!afterCompaction && <CacheLine cache={latest.cache} />}
          <TokenChart measurements={series} compactions={notices} {...(onPickStep ? { onPickStep } : {})} />
        </>
      )}
    </section>
  );
}

const REWRITE_CAUSE: Record<NonNullable<NonNullable<Measurement["cache"]>["rewrite"]>, string> = {
  batch: "a batch of reductions that saved its threshold",
  fit: "needed to fit",
  compaction: "LLM compaction due",
  history: "the history changed under them",
};

/**
 * Whether the last request extended the one before it (a prefix cache serves it whole) or rewrote
 * messages already sent, and what that cost.
 */
function CacheLine({ cache }: { cache: Measurement["cache"] }) {
  if (!cache) return null;
  if (cache.rewrite === null) {
    if (cache.dueTokens === 0) return null;
    return (
      <p className="muted small" data-testid="gauge-cache" data-rewrite="">
        {formatTokens(cache.dueTokens)} of reductions wait: the request extends the previous one, so the
        provider can serve it from its cache
      </p>
    );
  }
  const figures =
    cache.resentTokens !== undefined
      ? `: ${formatTokens(cache.resentTokens)} resent to save ${formatTokens(cache.savedTokens ?? 0)}`
      : "";
  return (
    <p className="small" data-testid="gauge-cache" data-rewrite={cache.rewrite}>
      Messages already sent were rewritten ({REWRITE_CAUSE[cache.rewrite]}){figures}; the cache serves only
      what comes before the first change
    </p>
  );
}
