import { useState } from "react";
import { useActionError } from "../hooks/use-action-error.ts";
import { errorText, prettyArguments } from "../lib/format.ts";
import { useStore } from "../state/store-context.tsx";
import type { ApprovalRequest, ThreadState } from "../state/thread-state.ts";

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
  const [busy, setBusy] = useState(false);
  const [error, setError] = useActionError();
  const resolve = async (decision: "approve" | "deny") => {
    setBusy(true);
    setError(null);
    try {
      // approval.requested events always name their agent; call ids are unique per agent only.
      if (!request.agentId) throw new Error("this approval names no agent");
      await api.approvals.resolve(request.agentId, request.callId, {
        decision,
        ...(reason.trim() ? { reason: reason.trim() } : {}),
      });
    } catch (caught) {
      setError(errorText(caught));
    } finally {
      setBusy(false);
    }
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
      <div className="actions">
        <input
          aria-label="Reason"
          placeholder="reason (optional)"
          value={reason}
          onChange={(event) => setReason(event.target.value)}
        />
        <button
          type="button"
          className="primary"
          disabled={busy}
          data-testid="approve-button"
          data-call-id={request.callId}
          onClick={() => void resolve("approve")}
        >
          Approve
        </button>
        <button
          type="button"
          className="danger"
          disabled={busy}
          data-testid="deny-button"
          data-call-id={request.callId}
          onClick={() => void resolve("deny")}
        >
          Deny
        </button>
        {error && <span className="error small">{error}</span>}
      </div>
    </div>
  );
}
