import type { CompactionEvent } from "@longrun/protocol";
import { memo } from "react";
import { formatTokens, shortPath, textOf } from "../lib/format.ts";
import type { RemovedRange } from "../state/removed-ranges.ts";
import type { CompactionNotice } from "../state/thread-state.ts";
import { FromHere, type TimeTravel } from "./from-here.tsx";
import type { HistoryRange } from "./history-panel.tsx";
import { LedgerView } from "./ledger-view.tsx";

/** Why a compaction started, by its trigger. */
export const TRIGGER_TEXT = {
  auto: "the context passed the trigger line",
  manual: "/compact was requested",
  overflow: "the provider reported a context overflow",
} as const;

/**
 * A compaction as a diff, inline in the transcript: why, what it removed (a message range, linked to that
 * part of the history file), the summary and ledger that replace it, what was restored, and the size of
 * the next request before → after. The request right after it stays viewable, labelled with its step.
 */
export const CompactionNoticeView = memo(function CompactionNoticeView({
  notice,
  removed,
  detail,
  asOfStep,
  onOpenHistory,
  onOpenDiff,
  travel = null,
}: {
  notice: CompactionNotice;
  removed: RemovedRange | null;
  detail: CompactionEvent | null;
  asOfStep: number | null;
  onOpenHistory: (range: HistoryRange | null) => void;
  /** Opens the compaction's diff (absent where there is no dialog to open, e.g. server-side rendering). */
  onOpenDiff?: ((compactionId: string) => void) | undefined;
  travel?: TimeTravel | null;
}) {
  const saved = notice.saved ? notice.saved.collapse + notice.saved.truncate + notice.saved.microcompact : 0;
  return (
    <aside
      className={`compaction-notice phase-${notice.phase}`}
      data-testid="compaction-notice"
      data-entry=""
      tabIndex={-1}
      data-compaction-id={notice.compactionId ?? notice.key}
      data-phase={notice.phase}
      data-trigger={notice.trigger}
    >
      <div className="compaction-head">
        <strong>{headline(notice)}</strong>
        <span className="muted small"> · {TRIGGER_TEXT[notice.trigger]}</span>{" "}
        {travel && notice.phase === "completed" && notice.compactionId && (
          <FromHere point={{ atCompactionId: notice.compactionId }} travel={travel} what="this compaction" />
        )}
      </div>
      {notice.phase === "completed" && (
        <>
          <p className="compaction-figures" data-testid="compaction-figures">
            Next request: {formatTokens(notice.tokensBefore)} → {formatTokens(notice.tokensAfter)} tokens
            {notice.tokensAfter !== undefined && notice.tokensBefore > 0 && (
              <span className="muted"> ({percentChange(notice.tokensBefore, notice.tokensAfter)})</span>
            )}
          </p>
          {notice.saved && (
            <p className="muted small" data-testid="compaction-deterministic">
              {saved > 0
                ? `The ${formatTokens(notice.tokensBefore)} is already after the deterministic stages removed ${formatTokens(saved)} from the raw history (collapse ${formatTokens(notice.saved.collapse)}, truncate ${formatTokens(notice.saved.truncate)}, microcompact ${formatTokens(notice.saved.microcompact)}); the drop shown is the summary's alone.`
                : "The deterministic stages (collapse, truncate, microcompact) had removed nothing; the drop shown is the summary's alone."}
            </p>
          )}
          {removed && (
            <p className="small" data-testid="compaction-removed">
              Removed from the context: {rangeText(removed)} (
              {removed.complete
                ? `${removed.count} shown greyed above`
                : `not all read yet: ${removed.count} shown greyed above`}
              ).{keptText(removed)}{" "}
              <button
                type="button"
                className="link small"
                data-testid="compaction-history-link"
                title={notice.historyFile ?? undefined}
                onClick={() => onOpenHistory({ fromSeq: removed.fromSeq, toSeq: removed.toSeq })}
              >
                Open this part of the history{notice.historyFile ? ` (${shortPath(notice.historyFile)})` : ""}
              </button>
            </p>
          )}
          {!removed && notice.historyFile && (
            <button
              type="button"
              className="link small"
              data-testid="compaction-history-link"
              title={notice.historyFile}
              onClick={() => onOpenHistory(null)}
            >
              View compacted history ({shortPath(notice.historyFile)})
            </button>
          )}
          {onOpenDiff && notice.compactionId && (
            <p className="small">
              <button
                type="button"
                className="link small"
                data-testid="compaction-diff-link"
                onClick={() => notice.compactionId && onOpenDiff(notice.compactionId)}
              >
                Open the diff: each removed message beside the ledger entry that stands for it, checks and
                cost
              </button>
            </p>
          )}
          {notice.restored && notice.restored.length > 0 && (
            <p className="muted small" data-testid="compaction-restored">
              Restored after the summary:{" "}
              {notice.restored
                .map(
                  (item) => `${item.kind}${item.path ? ` ${item.path}` : ""} (${formatTokens(item.tokens)})`,
                )
                .join(", ")}
            </p>
          )}
          {detail && <SummaryDetail detail={detail} asOfStep={asOfStep} removed={removed} />}
          {notice.warnings?.map((warning) => (
            <p key={warning} className="error small">
              {warning}
            </p>
          ))}
        </>
      )}
      {notice.phase === "started" && (
        <p className="muted small">Summarizing {formatTokens(notice.tokensBefore)} tokens…</p>
      )}
      {notice.phase === "skipped" && (
        <p className="muted small" data-testid="compaction-skipped">
          {notice.reason ?? "Nothing to compact."} Nothing was changed.
        </p>
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
});

/** The summary text and ledger that replaced the removed messages, and the request right after. */
function SummaryDetail({
  detail,
  asOfStep,
  removed,
}: {
  detail: CompactionEvent;
  asOfStep: number | null;
  removed: RemovedRange | null;
}) {
  const summary = textOf(detail.summaryMessage.content);
  return (
    <>
      <details className="compaction-summary" data-testid="compaction-summary">
        <summary>Summary the model gets instead ({summary.length} chars)</summary>
        <pre className="message-text">{summary}</pre>
      </details>
      {detail.ledger && (
        <details className="compaction-ledger" data-testid="compaction-ledger">
          <summary>Working-state ledger</summary>
          <LedgerView ledger={detail.ledger} />
        </details>
      )}
      <details className="compaction-request" data-testid="compaction-request">
        <summary>Next request {asOfStep === null ? "right after it" : `as of step ${asOfStep}`}</summary>
        <ol className="small">
          <li>system prompt</li>
          {detail.includesPrefix && <li>(the inherited fork prefix is folded into the summary)</li>}
          <li>summary ({detail.strategy}) with the ledger</li>
          {detail.pinnedMessage && <li>the latest user message, verbatim</li>}
          {detail.restored.map((item) => (
            <li key={`${item.kind}:${item.path ?? ""}`}>
              restored {item.kind}
              {item.path ? ` ${item.path}` : ""} ({formatTokens(item.tokens)})
            </li>
          ))}
          <li>
            messages from #{detail.cutoffIndex} on, verbatim
            {removed ? ` (everything before #${removed.toSeq + 1} is summarized)` : ""}
          </li>
        </ol>
        <p className="muted small">
          {formatTokens(detail.tokensBefore)} → {formatTokens(detail.tokensAfter)} tokens.
        </p>
      </details>
    </>
  );
}

/** "messages #2–#11", "messages #2–#11 except #7", or "no message" when it kept all it covered. */
function rangeText(removed: RemovedRange): string {
  if (removed.toSeq < removed.fromSeq) return "no message";
  const inside = removed.kept.filter((item) => item.seq > removed.fromSeq && item.seq < removed.toSeq);
  const range =
    removed.fromSeq === removed.toSeq
      ? `message #${removed.fromSeq}`
      : `messages #${removed.fromSeq}–#${removed.toSeq}`;
  return inside.length > 0 ? `${range} except ${inside.map((item) => `#${item.seq}`).join(", ")}` : range;
}

/** What the projection still sends verbatim from before the cutoff. */
function keptText(removed: RemovedRange): string {
  if (removed.kept.length === 0) return "";
  const parts = removed.kept.map((item) =>
    item.why === "system" ? `#${item.seq} (system prompt)` : `#${item.seq} (the task, after the summary)`,
  );
  return ` Still sent verbatim: ${parts.join(", ")}.`;
}

function headline(notice: CompactionNotice): string {
  if (notice.phase === "started") return "Compacting context…";
  if (notice.phase === "failed") return "Compaction failed";
  if (notice.phase === "skipped") return "Nothing to compact";
  return `Context compacted (${notice.strategy === "full" ? "full summary" : "partial: older prefix summarized, recent tail kept"})`;
}

/** "−62%" for a reduction, "+17%" when restored files made the context larger than before. */
export function percentChange(before: number, after: number): string {
  const change = Math.round((after / before - 1) * 100);
  return change > 0 ? `+${change}%` : `−${Math.abs(change)}%`;
}
