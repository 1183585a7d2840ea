import { useState } from "react";
import { prettyArguments } from "../lib/format.ts";
import { useStore } from "../state/store-context.tsx";
import type { ApprovalRequest, ThreadState } from "../state/thread-state.ts";
import { type Decision, DecisionButtons } from "./decision-buttons.tsx";

/** Tool calls waiting for a human decision, with their arguments and approve/deny buttons. */
export function ApprovalPanel({ thread }: { thread: ThreadState }) {
  const pending = Object.values(thread.approvals).sort((left, right) => left.requestedAt - right.requestedAt);
  if (pending.length === 0) return null;
  return (
    <section className="panel approvals" data-testid="approval-panel">
      <h2>Waiting for approval ({pending.length})</h2>
      {pending.map((request) => (
        <ApprovalItem
          key={request.callId}
          request={request}
          agentName={request.agentId ? (thread.agents[request.agentId]?.name ?? request.agentId) : null}
        />
      ))}
    </section>
  );
}

function ApprovalItem({ request, agentName }: { request: ApprovalRequest; agentName: string | null }) {
  const { api } = useStore();
  const [reason, setReason] = useState("");
  const decide = async (decision: Decision) => {
    // approval.requested events always name their agent; call ids are unique per agent only.
    if (!request.agentId) throw new Error("this approval names no agent");
    await api.approvals.resolve(request.agentId, request.callId, {
      decision,
      ...(reason.trim() ? { reason: reason.trim() } : {}),
    });
  };
  return (
    <div className="approval" data-testid="approval-request" data-call-id={request.callId}>
      <div>
        <strong>{request.name}</strong>
        {agentName && <span className="muted small"> · {agentName}</span>}
      </div>
      <pre className="code" data-testid="approval-arguments">
        {prettyArguments(request.arguments)}
      </pre>
      <DecisionButtons
        decide={decide}
        testIds={{ approve: "approve-button", deny: "deny-button" }}
        callId={request.callId}
      >
        <input
          aria-label="Reason"
          placeholder="reason (optional)"
          value={reason}
          onChange={(event) => setReason(event.target.value)}
        />
      </DecisionButtons>
    </div>
  );
}
