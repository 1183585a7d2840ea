import { useState } from "react";
import { useActionError } from "../hooks/use-action-error.ts";
import { errorText } from "../lib/format.ts";
import { useStore } from "../state/store-context.tsx";
import type { ThreadState } from "../state/thread-state.ts";
import { outcome } from "./run-history.tsx";
import { SpawnTeamForm } from "./spawn-team-form.tsx";

/** Actions on the selected agent: compact its context now, or spawn a team of sub-agents under it. */
export function AgentActions({
  thread,
  agentId,
  agentName,
}: {
  thread: ThreadState;
  agentId: string;
  agentName: string;
}) {
  const { api } = useStore();
  const [error, setError] = useActionError();
  const [compactRunId, setCompactRunId] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [spawnOpen, setSpawnOpen] = useState(false);
  const compact = async () => {
    setBusy(true);
    setError(null);
    try {
      const result = await api.agents.compact(agentId);
      setCompactRunId(result.runId);
    } catch (caught) {
      setError(errorText(caught));
    } finally {
      setBusy(false);
    }
  };
  // The notice follows the compaction run: queued behind another run, running, then how it ended.
  const run = compactRunId ? thread.runs[compactRunId] : undefined;
  const notice = compactRunId ? compactNotice(run, thread, compactRunId) : null;
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
      {error && (
        <p className="error small" data-testid="action-notice" data-state="error">
          {error}
        </p>
      )}
      {!error && notice && (
        <p className="muted small" data-testid="action-notice" data-state={notice.state} role="status">
          {notice.text}
        </p>
      )}
      {spawnOpen && <SpawnTeamForm agentId={agentId} onDone={() => setSpawnOpen(false)} />}
    </section>
  );
}

function compactNotice(
  run: ThreadState["runs"][string] | undefined,
  thread: ThreadState,
  runId: string,
): { text: string; state: string } {
  if (!run || run.status === "queued") {
    const busy = Object.values(thread.runs).some(
      (other) => other.id !== runId && (other.status === "running" || other.status === "waiting"),
    );
    return busy
      ? { text: "Compaction queued behind the running run: it starts when that run ends.", state: "queued" }
      : { text: "Compaction queued; it starts in a moment.", state: "queued" };
  }
  if (run.status === "running" || run.status === "waiting") return { text: "Compacting…", state: "running" };
  const skipped = Object.values(thread.compactions).some(
    (notice) => notice.phase === "skipped" && notice.eventSeq > 0 && notice.at >= (run.startedAt ?? 0),
  );
  if (run.status === "completed" && skipped) {
    return { text: "Nothing to compact: the history already fits the kept window.", state: "skipped" };
  }
  return { text: `Compaction ${outcome(run)}.`, state: run.status };
}
