import type { CompactionEvent } from "@longrun/protocol";
import { useEffect, useState } from "react";
import { useOptionalStore } from "../state/store-context.tsx";
import type { TranscriptEntry } from "../state/transcript.ts";

/**
 * Summary text, ledger and restored content of the agent's compactions (GET /v1/agents/:id/compactions),
 * by compaction id; read again when a compaction completes.
 */
export function useCompactionDetails(
  agentId: string,
  entries: readonly TranscriptEntry[],
): Record<string, CompactionEvent> {
  const api = useOptionalStore()?.api ?? null;
  const [details, setDetails] = useState<Record<string, CompactionEvent>>({});
  const completed = entries
    .flatMap((entry) =>
      entry.kind === "compaction" && entry.notice.compactionId ? [entry.notice.compactionId] : [],
    )
    .join(",");
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
  return details;
}
