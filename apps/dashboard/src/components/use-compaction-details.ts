import type { CompactionCoverage, CompactionList } from "@longrun/protocol";
import { useEffect, useMemo, useState } from "react";
import { useOptionalStore } from "../state/store-context.tsx";
import type { ThreadState } from "../state/thread-state.ts";

type CompactionDetail = CompactionList["compactions"][number];

/**
 * Summary text, ledger, restored content and coverage (what the projection took out and what it still
 * sends) of the agent's compactions (GET /v1/agents/:id/compactions), by compaction id; read again when
 * a compaction completes.
 */
export function useCompactionDetails(
  agentId: string,
  compactions: ThreadState["compactions"],
): { details: Record<string, CompactionDetail>; coverage: Record<string, CompactionCoverage> } {
  const api = useOptionalStore()?.api ?? null;
  const [details, setDetails] = useState<Record<string, CompactionDetail>>({});
  // Recomputed only when the compactions change, not on every batch of a streaming run.
  const completed = useMemo(
    () =>
      Object.values(compactions)
        .flatMap((notice) =>
          notice.agentId === agentId && notice.phase === "completed" && notice.compactionId
            ? [notice.compactionId]
            : [],
        )
        .sort()
        .join(","),
    [compactions, agentId],
  );
  useEffect(() => {
    if (!completed || !api) return;
    let cancelled = false;
    api.agents
      .compactions(agentId)
      .then((list) => {
        if (!cancelled) setDetails(Object.fromEntries(list.map((event) => [event.id, event])));
      })
      .catch(() => {
        // The notice still shows what the events said; the summary text appears on the next read.
      });
    return () => {
      cancelled = true;
    };
  }, [api, agentId, completed]);
  const coverage = useMemo(
    () =>
      Object.fromEntries(
        Object.values(details).flatMap((detail) => (detail.coverage ? [[detail.id, detail.coverage]] : [])),
      ),
    [details],
  );
  return { details, coverage };
}
