import { useState } from "react";
import { errorText } from "../lib/format.ts";
import { useStore } from "../state/store-context.tsx";
import { SpawnTeamForm } from "./spawn-team-form.tsx";

/** Actions on the selected agent: compact its context now, or spawn a team of sub-agents under it. */
export function AgentActions({ agentId, agentName }: { agentId: string; agentName: string }) {
  const { api } = useStore();
  const [notice, setNotice] = useState<{ text: string; error: boolean } | null>(null);
  const [busy, setBusy] = useState(false);
  const [spawnOpen, setSpawnOpen] = useState(false);
  const compact = async () => {
    setBusy(true);
    setNotice(null);
    try {
      await api.agents.compact(agentId);
      setNotice({
        text: "Compaction queued; a notice appears in the transcript when it is done.",
        error: false,
      });
    } catch (caught) {
      setNotice({ text: errorText(caught), error: true });
    } finally {
      setBusy(false);
    }
  };
  return (
    <section className="panel agent-actions" data-testid="agent-actions">
      <h2>Actions · {agentName}</h2>
      <div className="actions">
        <button
          type="button"
          disabled={busy}
          data-testid="compact-button"
          title="/compact: summarize the older part of this agent's context now"
          onClick={() => void compact()}
        >
          /compact
        </button>
        <button
          type="button"
          data-testid="spawn-toggle"
          aria-expanded={spawnOpen}
          onClick={() => setSpawnOpen((open) => !open)}
        >
          Spawn team…
        </button>
      </div>
      {notice && (
        <p className={notice.error ? "error small" : "muted small"} data-testid="action-notice">
          {notice.text}
        </p>
      )}
      {spawnOpen && <SpawnTeamForm agentId={agentId} onDone={() => setSpawnOpen(false)} />}
    </section>
  );
}
