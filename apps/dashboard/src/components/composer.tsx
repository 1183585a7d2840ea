import { useState } from "react";
import { useActionError } from "../hooks/use-action-error.ts";
import { errorText } from "../lib/format.ts";
import { useStore } from "../state/store-context.tsx";

/** Sends a user message to the selected agent (Ctrl/⌘+Enter sends). */
export function Composer({
  threadId,
  agentId,
  agentName,
}: {
  threadId: string;
  agentId: string | null;
  agentName: string | null;
}) {
  const { api } = useStore();
  const [content, setContent] = useState("");
  const [busy, setBusy] = useState(false);
  const [status, setStatus] = useState<{ text: string; error: boolean } | null>(null);
  const [error, setError] = useActionError();
  const send = async () => {
    const text = content.trim();
    if (!text) return;
    setBusy(true);
    setStatus(null);
    setError(null);
    try {
      const result = await api.threads.sendMessage(threadId, {
        content: text,
        ...(agentId ? { agentId } : {}),
      });
      setContent("");
      if (result.queued)
        setStatus({ text: `Queued behind another run (position ${result.position}).`, error: false });
    } catch (caught) {
      setError(errorText(caught));
    } finally {
      setBusy(false);
    }
  };
  return (
    <form
      className="composer"
      data-testid="composer"
      onSubmit={(event) => {
        event.preventDefault();
        void send();
      }}
    >
      <textarea
        aria-label="Message"
        id="composer-input"
        data-testid="composer-input"
        rows={2}
        placeholder={agentName ? `Message ${agentName}…` : "Message…"}
        value={content}
        onChange={(event) => setContent(event.target.value)}
        onKeyDown={(event) => {
          if (event.key === "Enter" && (event.metaKey || event.ctrlKey)) {
            event.preventDefault();
            void send();
          }
        }}
      />
      <button type="submit" className="primary" disabled={busy || !content.trim()} data-testid="send-button">
        Send
      </button>
      {(error ?? status) && (
        <span className={error ? "error small" : "muted small"} data-testid="composer-status" role="status">
          {error ?? status?.text}
        </span>
      )}
    </form>
  );
}
