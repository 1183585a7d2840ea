import { formatTokens, shortPath } from "../lib/format.ts";
import type { CompactionNotice } from "../state/thread-state.ts";

const TRIGGER_TEXT = {
  auto: "the context passed the trigger line",
  manual: "/compact was requested",
  overflow: "the provider reported a context overflow",
} as const;

/** What a compaction did, inline in the transcript: why, how, tokens before → after, and where the history went. */
export function CompactionNoticeView({
  notice,
  onOpenHistory,
}: {
  notice: CompactionNotice;
  onOpenHistory: () => void;
}) {
  return (
    <aside
      className={`compaction-notice phase-${notice.phase}`}
      data-testid="compaction-notice"
      data-compaction-id={notice.compactionId ?? notice.key}
      data-phase={notice.phase}
      data-trigger={notice.trigger}
    >
      <div className="compaction-head">
        <strong>{headline(notice)}</strong>
        <span className="muted small"> · {TRIGGER_TEXT[notice.trigger]}</span>
      </div>
      {notice.phase === "completed" && (
        <>
          <p className="compaction-figures">
            {formatTokens(notice.tokensBefore)} → {formatTokens(notice.tokensAfter)} tokens
            {notice.tokensAfter !== undefined && notice.tokensBefore > 0 && (
              <span className="muted"> ({percentChange(notice.tokensBefore, notice.tokensAfter)})</span>
            )}
          </p>
          {notice.saved && (
            <p className="muted small">
              Before summarizing, the deterministic stages saved: collapse{" "}
              {formatTokens(notice.saved.collapse)}, truncate {formatTokens(notice.saved.truncate)},
              microcompact {formatTokens(notice.saved.microcompact)}.
            </p>
          )}
          {notice.restored && notice.restored.length > 0 && (
            <p className="muted small">
              Restored after the summary:{" "}
              {notice.restored
                .map(
                  (item) => `${item.kind}${item.path ? ` ${item.path}` : ""} (${formatTokens(item.tokens)})`,
                )
                .join(", ")}
            </p>
          )}
          {notice.warnings?.map((warning) => (
            <p key={warning} className="error small">
              {warning}
            </p>
          ))}
          <button
            type="button"
            className="link small"
            data-testid="compaction-history-link"
            title={notice.historyFile ?? undefined}
            onClick={onOpenHistory}
          >
            View compacted history{notice.historyFile ? ` (${shortPath(notice.historyFile)})` : ""}
          </button>
        </>
      )}
      {notice.phase === "started" && (
        <p className="muted small">Summarizing {formatTokens(notice.tokensBefore)} tokens…</p>
      )}
      {notice.phase === "failed" && (
        <p className="error small">
          {notice.reason}
          {notice.failures > 1 ? ` (${notice.failures} attempts)` : ""} · breaker{" "}
          {notice.breaker?.replace("_", "-")}
          {notice.contextExhausted ? " · context exhausted: start a new thread" : ""}
        </p>
      )}
    </aside>
  );
}

function headline(notice: CompactionNotice): string {
  if (notice.phase === "started") return "Compacting context…";
  if (notice.phase === "failed") return "Compaction failed";
  return `Context compacted (${notice.strategy === "full" ? "full summary" : "partial: older prefix summarized, recent tail kept"})`;
}

/** "−62%" for a reduction, "+17%" when restored files made the context larger than before. */
export function percentChange(before: number, after: number): string {
  const change = Math.round((after / before - 1) * 100);
  return change > 0 ? `+${change}%` : `−${Math.abs(change)}%`;
}
