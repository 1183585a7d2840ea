import { useEffect, useRef, useState } from "react";
import type { ThreadState } from "../state/thread-state.ts";

/**
 * A polite live region: screen readers hear new approval requests and how runs ended, once each.
 * Nothing is announced for what was already there when the thread opened.
 */
export function LiveAnnouncer({ thread }: { thread: ThreadState }) {
  const [message, setMessage] = useState("");
  const seen = useRef<Set<string> | null>(null);
  useEffect(() => {
    const current = new Map<string, string>();
    for (const request of Object.values(thread.approvals)) {
      const agent = request.agentId ? thread.agents[request.agentId]?.name : null;
      current.set(`approval:${request.callId}`, `${agent ?? "An agent"} asks to run ${request.name}.`);
    }
    for (const run of Object.values(thread.runs)) {
      if (
        run.status === "completed" ||
        run.status === "failed" ||
        run.status === "cancelled" ||
        run.status === "stuck"
      ) {
        current.set(`run:${run.id}:${run.status}`, `Run ${run.kind ?? ""} ${run.status}.`);
      }
    }
    if (seen.current === null || !thread.historyLoaded) {
      seen.current = new Set(current.keys());
      return;
    }
    const fresh = [...current.entries()].filter(([key]) => !seen.current?.has(key));
    for (const [key] of fresh) seen.current.add(key);
    if (fresh.length > 0) setMessage(fresh.map(([, text]) => text).join(" "));
  }, [thread.approvals, thread.runs, thread.agents, thread.historyLoaded]);
  return (
    <div className="sr-only" role="status" aria-live="polite" data-testid="live-announcer">
      {message}
    </div>
  );
}
