import type { ReactNode } from "react";
import { useState } from "react";
import { useActionError } from "../hooks/use-action-error.ts";
import { errorText } from "../lib/format.ts";

export type Decision = "approve" | "deny";

/**
 * Approve and Deny for one waiting call: both disabled while a decision is sent, and its error shown
 * beside them. `children` comes first in the row (the panel's reason field).
 */
export function DecisionButtons({
  decide,
  testIds,
  callId,
  children,
}: {
  decide: (decision: Decision) => Promise<void>;
  testIds: { approve: string; deny: string };
  callId?: string;
  children?: ReactNode;
}) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useActionError();
  const send = async (decision: Decision) => {
    setBusy(true);
    setError(null);
    try {
      await decide(decision);
    } catch (caught) {
      setError(errorText(caught));
    } finally {
      setBusy(false);
    }
  };
  return (
    <div className="actions">
      {children}
      <button
        type="button"
        className="primary"
        disabled={busy}
        data-testid={testIds.approve}
        data-call-id={callId}
        onClick={() => void send("approve")}
      >
        Approve
      </button>
      <button
        type="button"
        className="danger"
        disabled={busy}
        data-testid={testIds.deny}
        data-call-id={callId}
        onClick={() => void send("deny")}
      >
        Deny
      </button>
      {error && <span className="error small">{error}</span>}
    </div>
  );
}
