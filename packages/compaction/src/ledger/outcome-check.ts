import type { Ledger, ToolCall } from "@longrun/protocol";
import { contentText } from "@longrun/protocol";
import { callEffects } from "./call-effects.ts";
import { type ResultOutcome, resultOutcome } from "./result-outcome.ts";
import type { LedgerSource } from "./update-ledger.ts";

/** One call and what its result shows. */
interface ShownCall {
  call: ToolCall;
  command: string | null;
  shell: boolean;
  paths: string[];
  shown: ResultOutcome;
}

/** The calls made at each step with the outcome their results show (unanswered calls left out). */
function callsByStep(facts: readonly LedgerSource[]): Map<number, ShownCall[]> {
  const open = new Map<string, { call: ToolCall; step: number }>();
  const byStep = new Map<number, ShownCall[]>();
  for (const { message, step, status } of facts) {
    if (message.role === "assistant" && step !== null) {
      for (const call of message.tool_calls ?? []) open.set(call.id, { call, step });
      continue;
    }
    const made = message.role === "tool" ? open.get(message.tool_call_id ?? "") : undefined;
    if (!made) continue;
    const text = contentText(message.content);
    const effects = callEffects(made.call, text);
    const shown = resultOutcome(text, status, effects);
    const list = byStep.get(made.step) ?? [];
    list.push({
      call: made.call,
      command: effects.command,
      shell: effects.shell,
      paths: effects.changes.map((change) => change.path),
      shown,
    });
    byStep.set(made.step, list);
  }
  return byStep;
}

/** Whether a command entry's code and outcome are what its result shows. */
function commandShown(entry: Ledger["commands"][number], calls: readonly ShownCall[]): boolean {
  const same = calls.filter((call) => call.command === entry.command);
  const outcome =
    entry.outcome ?? (entry.exitCode === null ? "failed" : entry.exitCode === 0 ? "ok" : "failed");
  return same.some(
    ({ shown }) =>
      shown.exitCode === entry.exitCode &&
      (outcome === shown.outcome || (outcome === "unknown" && shown.outcome !== "failed")),
  );
}

/**
 * How many ledger entries claim an outcome their result does not show: a command with an exit code
 * the result does not carry, or `ok` for a result that shows failure (or none); a changed file whose
 * call's result shows failure (a shell command's also when it shows no success); an error whose
 * result shows no failure, or another exit code. `facts` are the sources the ledger was folded from;
 * entries of steps not among them (an earlier compaction's) are not judged. Results are read as the
 * ledger reads them (resultOutcome), so this counts what a ledger claims beyond that reading, e.g.
 * a ledger recorded by an older version or edited by hand.
 */
export function unshownOutcomes(ledger: Ledger, facts: readonly LedgerSource[]): number {
  const byStep = callsByStep(facts);
  let unshown = 0;
  for (const entry of ledger.commands) {
    const calls = entry.step === null ? undefined : byStep.get(entry.step);
    if (calls?.some((call) => call.command === entry.command) && !commandShown(entry, calls)) unshown++;
  }
  for (const file of ledger.changedFiles) {
    const calls = file.step === null ? undefined : byStep.get(file.step);
    const changing = calls?.filter((call) => call.paths.includes(file.path)) ?? [];
    if (changing.length === 0) continue;
    const confirmed = changing.some(({ shell, shown }) => (shell ? shown.outcome === "ok" : !shown.failed));
    if (!confirmed) unshown++;
  }
  for (const error of ledger.errors) {
    const calls = error.step === null ? undefined : byStep.get(error.step);
    if (calls === undefined || calls.length === 0) continue;
    if (!calls.some(({ shown }) => shown.failed && shown.exitCode === error.exitCode)) unshown++;
  }
  return unshown;
}
