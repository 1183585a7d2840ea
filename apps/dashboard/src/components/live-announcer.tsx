import { useEffect, useRef, useState } from "react";
import type { ThreadState } from "../state/thread-state.ts";

/**
 * A polite live region: screen readers hear new approval requests, the decisions taken on them and how
 * runs ended, once each; a decision replaces the request it answers, so the region never keeps asking
 * about a call already decided. Nothing is announced for what was already there when the thread opened.
 */
export function LiveAnnouncer({ thread }: { thread: ThreadState }) {
  const [message, setMessage] = useState("");
  const seen = useRef<Set<string> | null>(null);
  /** Tool names of the calls asked about, by call id: the decision event does not repeat them. */
  const askedFor = useRef(new Map<string, string>());
  useEffect(() => {
    const current = new Map<string, string>();
    const agentName = (agentId: string | null) =>
      (agentId ? thread.agents[agentId]?.name : null) ?? "An agent";
    for (const request of Object.values(thread.approvals)) {
      askedFor.current.set(request.callId, request.name);
      current.set(`approval:${request.callId}`, `${agentName(request.agentId)} asks to run ${request.name}.`);
    }
    for (const [key, taken] of Object.entries(thread.decisions)) {
      // A rule's decision was nobody's answer to a question asked here: nothing to announce.
      if (taken.ruleId) continue;
      const separator = key.indexOf(":");
      const agentId = key.slice(0, separator);
      const name = askedFor.current.get(key.slice(separator + 1)) ?? "The call";
      current.set(
        `decision:${key}`,
        taken.decision === "approve"
          ? `${name} approved: ${agentName(agentId)} goes on.`
          : `${name} denied: ${agentName(agentId)} is told so.`,
      );
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
  }, [thread.approvals, thread.decisions, thread.runs, thread.agents, thread.historyLoaded]);
  return (
    <div className="sr-only" role="status" aria-live="polite" data-testid="live-announcer">
      {message}
    </div>
  );
}
