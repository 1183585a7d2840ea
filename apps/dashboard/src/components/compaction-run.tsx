import { formatTokens } from "../lib/format.ts";
import type { CompactionNotice } from "../state/thread-state.ts";

/**
 * Consecutive compaction notices as one row: how many, the size before the first and after the last,
 * failures among them; "Show each" unfolds them.
 */
export function CompactionRunRow({
  notices,
  onExpand,
}: {
  notices: readonly CompactionNotice[];
  onExpand: () => void;
}) {
  const first = notices[0];
  const last = notices[notices.length - 1];
  const failed = notices.filter((notice) => notice.phase === "failed").length;
  return (
    <aside
      className="compaction-notice compaction-run"
      data-testid="compaction-run"
      data-count={notices.length}
      data-entry=""
      tabIndex={-1}
      aria-label={`${notices.length} compactions in a row`}
    >
      <div className="compaction-head">
        <strong>{notices.length} compactions in a row</strong>
        <span className="muted small">
          {" "}
          · next request {formatTokens(first?.tokensBefore)} before the first,{" "}
          {formatTokens(last?.tokensAfter)} after the last{failed > 0 ? ` · ${failed} failed` : ""}
        </span>{" "}
        <button type="button" className="link small" data-testid="compaction-run-expand" onClick={onExpand}>
          Show each
        </button>
      </div>
    </aside>
  );
}
