import type { CompactionCoverage, CompactionList } from "@longrun/protocol";
import { useEffect, useMemo, useRef, useState } from "react";
import { useOptionalStore } from "../state/store-context.tsx";
import type { ThreadState } from "../state/thread-state.ts";

type CompactionDetail = CompactionList["compactions"][number];

/** What the page has read of one agent's compactions: the first `count` of its list (the next `offset`). */
interface DetailsRead {
  agentId: string;
  details: Record<string, CompactionDetail>;
  count: number;
}

/**
 * Summary text, ledger, restored content and coverage (what the projection took out and what it still
 * sends) of the agent's compactions (GET /v1/agents/:id/compactions), by compaction id. Read once, then,
 * when a compaction the page does not hold completes, only the ones after those held (`offset`), so
 * a long thread's page does not read and validate hundreds of summaries again at each compaction.
 */
export function useCompactionDetails(
  agentId: string,
  compactions: ThreadState["compactions"],
): { details: Record<string, CompactionDetail>; coverage: Record<string, CompactionCoverage> } {
  const api = useOptionalStore()?.api ?? null;
  const [read, setRead] = useState<DetailsRead>({ agentId, details: {}, count: 0 });
  const held = read.agentId === agentId ? read : null;
  // The effect reads what is held without re-running when it changes (only new completions do that).
  const heldRef = useRef(held);
  heldRef.current = held;
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
    const current = heldRef.current;
    if (current && completed.split(",").every((id) => id in current.details)) return;
    const offset = current?.count ?? 0;
    let cancelled = false;
    api.agents
      .compactions(agentId, offset > 0 ? { offset } : undefined)
      .then((list) => {
        if (cancelled) return;
        const details = {
          ...(offset > 0 ? current?.details : {}),
          ...Object.fromEntries(list.map((event) => [event.id, event])),
        };
        // One the list did not bring (not where it was expected): the next read takes the whole list.
        const whole = completed.split(",").every((id) => id in details);
        setRead({ agentId, details, count: whole ? offset + list.length : 0 });
      })
      .catch(() => {
        // The notice still shows what the events said; the next completion reads what is new again.
      });
    return () => {
      cancelled = true;
    };
  }, [api, agentId, completed]);
  const details = held?.details ?? EMPTY;
  const coverage = useMemo(
    () =>
      Object.fromEntries(
        Object.values(details).flatMap((detail) => (detail.coverage ? [[detail.id, detail.coverage]] : [])),
      ),
    [details],
  );
  return { details, coverage };
}

const EMPTY: Record<string, CompactionDetail> = {};
