import { useState } from "react";
import { clip, prettyArguments, textOf } from "../lib/format.ts";
import type { AgentNode, ToolActivity, TranscriptMessage } from "../state/thread-state.ts";

/** Output longer than this is cut, with a button to show the rest. */
const OUTPUT_LIMIT = 2000;
const ARGUMENTS_LIMIT = 1500;

/** A tool call and its result, collapsed to one line until opened. */
export function ToolCallBlock({
  callId,
  name,
  argumentsText,
  result,
  activity,
  decision = null,
  spawned = [],
  onSelectAgent,
}: {
  callId: string;
  name: string;
  argumentsText: string;
  result: TranscriptMessage | null;
  activity: ToolActivity | null;
  /** The person's decision on this call, when it needed one. */
  decision?: { decision: "approve" | "deny"; reason?: string } | null;
  /** Sub-agents this call created (spawn_agents): links to their transcripts. */
  spawned?: AgentNode[];
  onSelectAgent?: (agentId: string) => void;
}) {
  // The body (arguments, result) is drawn only while open: a long transcript's drawn calls stay one line
  // in the page as well as on screen.
  const [open, setOpen] = useState(false);
  const output = result ? textOf(result.content) : (activity?.output ?? null);
  const recorded = result?.toolStatus ?? (result ? "ok" : (activity?.status ?? "pending"));
  // A call the person denied did not fail: it never ran, by their choice.
  const status = decision?.decision === "deny" && recorded !== "ok" ? "denied" : recorded;
  const headline = clip(argumentsText.replace(/\s+/g, " "), 80).text;
  return (
    <>
      <details
        className={`tool-call tool-${status}`}
        data-testid="tool-call"
        data-call-id={callId}
        data-status={status}
        onToggle={(event) => setOpen(event.currentTarget.open)}
      >
        <summary>
          <span className="tool-name">{name}</span> <span className="muted small">{headline}</span>{" "}
          <span className={`badge tool-${status}`}>{status === "denied" ? "denied by you" : status}</span>
          {status === "denied" && decision?.reason && (
            <span className="muted small"> · {decision.reason}</span>
          )}
        </summary>
        {open && <ToolCallBody argumentsText={argumentsText} output={output} />}
      </details>
      {spawned.length > 0 && onSelectAgent && (
        <p className="spawned-agents small" data-testid="spawned-agents">
          Reports from:{" "}
          {spawned.map((agent) => (
            <button
              key={agent.id}
              type="button"
              className="link small"
              data-testid="spawned-agent-link"
              data-agent-id={agent.id}
              onClick={() => onSelectAgent(agent.id)}
            >
              {agent.name} ({agent.status.replaceAll("_", " ")})
            </button>
          ))}
        </p>
      )}
    </>
  );
}

/** An open call's arguments and result, cut at their limits until "Show all". */
function ToolCallBody({ argumentsText, output }: { argumentsText: string; output: string | null }) {
  const [showAll, setShowAll] = useState(false);
  const shownOutput =
    output === null ? null : showAll ? { text: output, clipped: false } : clip(output, OUTPUT_LIMIT);
  const args = clip(prettyArguments(argumentsText), showAll ? Number.POSITIVE_INFINITY : ARGUMENTS_LIMIT);
  return (
    <div className="tool-body">
      <div className="muted small">arguments</div>
      <pre className="code">{args.text}</pre>
      {shownOutput && (
        <>
          <div className="muted small">result</div>
          <pre className="code" data-testid="tool-output">
            {shownOutput.text}
          </pre>
        </>
      )}
      {(shownOutput?.clipped || args.clipped) && (
        <button
          type="button"
          className="link small"
          data-testid="tool-output-expand"
          onClick={() => setShowAll(true)}
        >
          Show all ({(output ?? argumentsText).length} chars)
        </button>
      )}
    </div>
  );
}
