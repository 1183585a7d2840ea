import { useActionError } from "../hooks/use-action-error.ts";
import { useNow } from "../hooks/use-now.ts";
import { clip, errorText } from "../lib/format.ts";
import { type Blocker, formatCountdown } from "../state/blockers.ts";
import { useStore } from "../state/store-context.tsx";
import { DecisionButtons } from "./decision-buttons.tsx";

/**
 * What the thread waits for, in its header with the action that unblocks it: Approve/Deny for a call,
 * Compact now for a breaker's cooldown, a countdown for a provider retry. The sentence is announced
 * (a polite live region); the ticking countdown beside it is not, so a screen reader hears it once.
 */
export function BlockedOn({ found }: { found: readonly Blocker[] }) {
  return (
    <div className="blocked-on" data-testid="blocked-on" role="status" aria-live="polite">
      {found.map((blocker) => (
        <BlockerLine key={blockerKey(blocker)} blocker={blocker} />
      ))}
    </div>
  );
}

function blockerKey(blocker: Blocker): string {
  return blocker.kind === "approval"
    ? `approval:${blocker.request.callId}`
    : `${blocker.kind}:${blocker.agentId}`;
}

function BlockerLine({ blocker }: { blocker: Blocker }) {
  const { api } = useStore();
  const [error, setError] = useActionError();
  switch (blocker.kind) {
    case "approval": {
      const { request } = blocker;
      return (
        <div className="blocker blocker-approval" data-testid="blocker" data-kind="approval">
          <span>
            <strong>Waiting for you:</strong> {blocker.agentName} wants to run <code>{request.name}</code>{" "}
            <code className="blocker-args">{clip(request.arguments, 80).text}</code>
          </span>
          <DecisionButtons
            decide={async (decision) => {
              await api.approvals.resolve(blocker.agentId, request.callId, { decision });
            }}
            testIds={{ approve: "blocker-approve", deny: "blocker-deny" }}
            callId={request.callId}
          />
        </div>
      );
    }
    case "breaker":
      return (
        <div className="blocker blocker-wait" data-testid="blocker" data-kind="breaker">
          <span>
            <strong>{blocker.agentName} is waiting:</strong> compaction breaker open
            {blocker.until !== null && <Until until={blocker.until} word="until" />}.
          </span>
          <button
            type="button"
            className="small"
            data-testid="blocker-compact"
            onClick={() => {
              setError(null);
              api.agents.compact(blocker.agentId).catch((caught: unknown) => setError(errorText(caught)));
            }}
          >
            Compact now
          </button>
          {error && <span className="error small">{error}</span>}
        </div>
      );
    case "retry":
      return (
        <div className="blocker blocker-wait" data-testid="blocker" data-kind="retry">
          <span>
            <strong>{blocker.agentName} is waiting:</strong>{" "}
            {blocker.reason.replace(/: waiting until \S+$/, "")}
            {blocker.until !== null && <Until until={blocker.until} word="; retrying at" />}.
          </span>
        </div>
      );
    case "children":
      return (
        <div className="blocker" data-testid="blocker" data-kind="children">
          <strong>{blocker.agentName} is waiting for its sub-agents</strong>
          {blocker.children.length > 0 ? `: ${blocker.children.join(", ")}` : ""}.
        </div>
      );
  }
}

/** " until 07:31:02 (in 0:14)": the clock time is announced once, the countdown ticks silently. */
function Until({ until, word }: { until: number; word: string }) {
  const now = useNow();
  return (
    <>
      {word.startsWith(";") ? "" : " "}
      {word} {new Date(until).toLocaleTimeString()}{" "}
      <span aria-hidden="true" data-testid="blocker-countdown">
        (in {formatCountdown(until - now)})
      </span>
    </>
  );
}
