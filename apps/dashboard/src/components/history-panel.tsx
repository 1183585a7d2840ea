import { useEffect, useState } from "react";
import { clip, errorText } from "../lib/format.ts";
import { useStore } from "../state/store-context.tsx";
import { ModalDialog } from "./modal-dialog.tsx";

const PREVIEW_CHARS = 800;
const PAGE = 1000;

/** The part of the history a compaction moved out: messages with seq in [fromSeq, toSeq]. */
export interface HistoryRange {
  fromSeq: number;
  toSeq: number;
}

/**
 * The messages compaction moved out of the context into the agent's history file
 * (GET /v1/agents/:id/history), as a modal dialog. With a range, only that compaction's part of the file
 * is shown.
 */
export function HistoryPanel({
  agentId,
  range,
  onClose,
}: {
  agentId: string;
  range: HistoryRange | null;
  onClose: () => void;
}) {
  const { api } = useStore();
  const [lines, setLines] = useState<unknown[] | null>(null);
  const [file, setFile] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    let cancelled = false;
    const load = async () => {
      const found: unknown[] = [];
      let offset = 0;
      for (;;) {
        const page = await api.agents.history(agentId, { offset, limit: PAGE });
        if (cancelled) return;
        setFile(page.file);
        for (const line of page.messages) if (inRange(line, range)) found.push(line);
        const last = page.messages[page.messages.length - 1];
        const past = range !== null && seqOf(last) !== null && (seqOf(last) ?? 0) > range.toSeq;
        if (page.nextOffset === null || past) break;
        offset = page.nextOffset;
      }
      setLines(found);
    };
    load().catch((caught: unknown) => {
      if (!cancelled) setError(errorText(caught));
    });
    return () => {
      cancelled = true;
    };
  }, [api, agentId, range]);
  return (
    <ModalDialog className="history-panel" testId="history-panel" titleId="history-title" onClose={onClose}>
      <div className="panel-head">
        <h2 id="history-title">
          Compacted history{range ? ` · messages #${range.fromSeq}–#${range.toSeq}` : ""}
        </h2>
        <button type="button" className="small" data-testid="history-close" onClick={onClose}>
          Close
        </button>
      </div>
      {error && <p className="error">{error}</p>}
      {!lines && !error && <p className="muted">Loading…</p>}
      {lines && (
        <>
          <p className="muted small" data-testid="history-count">
            {lines.length} messages{file ? ` in ${file}` : ""}. They are out of the model's context but never
            deleted.
          </p>
          <ol className="history-messages">
            {lines.map((message, index) => (
              // biome-ignore lint/suspicious/noArrayIndexKey: history lines are append-only; the index is stable
              <li key={index} data-testid="history-message" data-seq={seqOf(message) ?? ""}>
                <pre className="message-text">{describe(message)}</pre>
              </li>
            ))}
          </ol>
        </>
      )}
    </ModalDialog>
  );
}

function seqOf(line: unknown): number | null {
  const seq = typeof line === "object" && line !== null ? (line as { seq?: unknown }).seq : undefined;
  return typeof seq === "number" ? seq : null;
}

function inRange(line: unknown, range: HistoryRange | null): boolean {
  if (!range) return true;
  const seq = seqOf(line);
  return seq !== null && seq >= range.fromSeq && seq <= range.toSeq;
}

function describe(message: unknown): string {
  if (typeof message !== "object" || message === null) return String(message);
  const fields = message as { role?: unknown; content?: unknown; seq?: unknown };
  const content =
    typeof fields.content === "string" ? fields.content : JSON.stringify(fields.content ?? message);
  const seq = typeof fields.seq === "number" ? `#${fields.seq} ` : "";
  return `${seq}${typeof fields.role === "string" ? `${fields.role}: ` : ""}${clip(content ?? "", PREVIEW_CHARS).text}`;
}
