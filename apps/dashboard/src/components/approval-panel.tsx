import { useState } from "react";
import { useActionError } from "../hooks/use-action-error.ts";
import { errorText, prettyArguments } from "../lib/format.ts";
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
      <RuleChoice request={request} />
    </div>
  );
}

/** What a rule's pattern matches for a call: run_command's command, a file tool's path. */
function ruleSubject(argumentsText: string): string | null {
  try {
    const parsed = JSON.parse(argumentsText) as Record<string, unknown>;
    for (const field of ["command", "path"]) {
      const value = parsed[field];
      if (typeof value === "string" && value.length > 0) return value;
    }
  } catch {
    // Arguments that are not JSON have no subject: no rule is offered (the plain decision still is).
  }
  return null;
}

/**
 * "Always allow `<pattern>` in this thread / in every thread": approves this call and makes a scoped rule
 * that approves later calls of the same tool whose subject matches the pattern (`*` any run of
 * characters, `?` one; the whole subject). The pattern starts as the call's own subject.
 */
function RuleChoice({ request }: { request: ApprovalRequest }) {
  const { api } = useStore();
  const subject = ruleSubject(request.arguments);
  const [pattern, setPattern] = useState(subject ?? "");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useActionError();
  if (subject === null || !request.agentId) return null;
  const agentId = request.agentId;
  const allow = async (scope: "thread" | "tenant") => {
    setBusy(true);
    setError(null);
    try {
      await api.approvals.resolve(agentId, request.callId, {
        decision: "approve",
        rule: { scope, ...(pattern.trim() ? { pattern: pattern.trim() } : {}) },
      });
    } catch (caught) {
      setError(errorText(caught));
    } finally {
      setBusy(false);
    }
  };
  return (
    <div className="rule-choice small" data-testid="rule-choice" data-call-id={request.callId}>
      <label>
        Always allow {request.name}{" "}
        <input
          type="text"
          data-testid="rule-pattern"
          aria-label={`Pattern of ${request.name} calls to always allow (* matches anything)`}
          value={pattern}
          onChange={(event) => setPattern(event.target.value)}
        />
      </label>
      <button
        type="button"
        data-testid="rule-thread"
        disabled={busy || pattern.trim() === ""}
        onClick={() => void allow("thread")}
      >
        in this thread
      </button>
      <button
        type="button"
        data-testid="rule-tenant"
        disabled={busy || pattern.trim() === ""}
        onClick={() => void allow("tenant")}
      >
        in every thread
      </button>
      {error && (
        <span className="error small" role="alert">
          {error}
        </span>
      )}
    </div>
  );
}
