import type { Ledger } from "@longrun/protocol";
import { clip } from "../lib/format.ts";

const LIST = 12;

/** The working-state ledger a compaction carries: what the agent changed, read, ran and was told. */
export function LedgerView({ ledger }: { ledger: Ledger }) {
  const open = ledger.errors.filter((error) => error.resolvedAt === null);
  return (
    <dl className="ledger small">
      {ledger.changedFiles.length > 0 && (
        <>
          <dt>Files changed</dt>
          <dd>{list(ledger.changedFiles.map((file) => `${file.path} (${file.action})`))}</dd>
        </>
      )}
      {ledger.readFiles.length > 0 && (
        <>
          <dt>Files read</dt>
          <dd>{list(ledger.readFiles.map((file) => file.path))}</dd>
        </>
      )}
      {ledger.commands.length > 0 && (
        <>
          <dt>Commands</dt>
          <dd>
            {list(
              ledger.commands.map(
                (command) => `${clip(command.command, 80).text} → ${command.exitCode ?? "?"}`,
              ),
            )}
          </dd>
        </>
      )}
      {ledger.errors.length > 0 && (
        <>
          <dt>Errors</dt>
          <dd>
            {open.length} unresolved of {ledger.errors.length}
            {open.length > 0 ? `: ${clip(open[open.length - 1]?.line ?? "", 160).text}` : ""}
          </dd>
        </>
      )}
      {ledger.plan && (
        <>
          <dt>Plan</dt>
          <dd>{clip(ledger.plan, 300).text}</dd>
        </>
      )}
      {ledger.todos.length > 0 && (
        <>
          <dt>TODOs</dt>
          <dd>{list(ledger.todos.map((todo) => `[${todo.status}] ${todo.content}`))}</dd>
        </>
      )}
      {ledger.subAgents.length > 0 && (
        <>
          <dt>Sub-agents</dt>
          <dd>{list(ledger.subAgents.map((agent) => `${agent.name}: ${agent.report ?? "no report"}`))}</dd>
        </>
      )}
      {ledger.userNotes.length > 0 && (
        <>
          <dt>User said</dt>
          <dd>{list(ledger.userNotes.map((note) => note.text))}</dd>
        </>
      )}
    </dl>
  );
}

function list(items: string[]): string {
  const shown = items.slice(-LIST).join("; ");
  return items.length > LIST ? `${items.length - LIST} earlier…; ${shown}` : shown;
}
