import type { AgentInherit } from "@longrun/protocol";
import { useState } from "react";
import { errorText } from "../lib/format.ts";
import { useStore } from "../state/store-context.tsx";

interface SpawnRow {
  key: number;
  name: string;
  brief: string;
  inherit: AgentInherit;
}

/** A team of sub-agents, each with a name, a brief, and whether it starts fresh or forks the parent's context. */
export function SpawnTeamForm({ agentId, onDone }: { agentId: string; onDone: () => void }) {
  const { api } = useStore();
  const [rows, setRows] = useState<SpawnRow[]>([{ key: 0, name: "worker-1", brief: "", inherit: "fresh" }]);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const update = (key: number, change: Partial<SpawnRow>) =>
    setRows((current) => current.map((row) => (row.key === key ? { ...row, ...change } : row)));
  const submit = async () => {
    const agents = rows
      .filter((row) => row.name.trim() && row.brief.trim())
      .map((row) => ({ name: row.name.trim(), brief: row.brief.trim(), inherit: row.inherit }));
    if (agents.length === 0) {
      setError("Give each sub-agent a name and a brief.");
      return;
    }
    setBusy(true);
    setError(null);
    try {
      await api.agents.spawn(agentId, { agents });
      onDone();
    } catch (caught) {
      setError(errorText(caught));
    } finally {
      setBusy(false);
    }
  };
  return (
    <form
      className="spawn-form"
      data-testid="spawn-form"
      onSubmit={(event) => {
        event.preventDefault();
        void submit();
      }}
    >
      {rows.map((row) => (
        <fieldset key={row.key} className="spawn-row" data-testid="spawn-row">
          <input
            aria-label="Sub-agent name"
            data-testid="spawn-name"
            value={row.name}
            onChange={(event) => update(row.key, { name: event.target.value })}
          />
          <select
            aria-label="Inherit"
            data-testid="spawn-inherit"
            value={row.inherit}
            onChange={(event) =>
              update(row.key, { inherit: event.target.value === "fork" ? "fork" : "fresh" })
            }
          >
            <option value="fresh">fresh (brief only)</option>
            <option value="fork">fork (parent's context)</option>
          </select>
          <textarea
            aria-label="Brief"
            data-testid="spawn-brief"
            rows={2}
            placeholder="brief"
            value={row.brief}
            onChange={(event) => update(row.key, { brief: event.target.value })}
          />
          {rows.length > 1 && (
            <button
              type="button"
              className="small"
              onClick={() => setRows((current) => current.filter((candidate) => candidate.key !== row.key))}
            >
              Remove
            </button>
          )}
        </fieldset>
      ))}
      <div className="actions">
        <button
          type="button"
          data-testid="spawn-add"
          onClick={() =>
            setRows((current) => [
              ...current,
              {
                key: Math.max(...current.map((row) => row.key)) + 1,
                name: `worker-${current.length + 1}`,
                brief: "",
                inherit: "fresh",
              },
            ])
          }
        >
          + Sub-agent
        </button>
        <button type="submit" className="primary" disabled={busy} data-testid="spawn-submit">
          Spawn
        </button>
        {error && <span className="error small">{error}</span>}
      </div>
    </form>
  );
}
