import type {
  ChatMessage,
  Ledger,
  PendingApproval,
  StoredMessage,
  TodoItem,
  ToolCall,
  ToolStatus,
} from "@longrun/protocol";
import { contentText } from "@longrun/protocol";
import { toChatMessage } from "../to-chat.ts";
import { callEffects, editorFileOf } from "./call-effects.ts";
import { LEDGER_LIMITS } from "./ledger-limits.ts";
import { foldNames, type NameSighting, namesIn, namesInArguments } from "./names.ts";
import { clipLine, resultOutcome } from "./result-outcome.ts";
import { isWorkingStateNote } from "./user-notes.ts";

/** One fact as the ledger reads it: the wire message, its seq (null in a fork prefix) and status. */
export interface LedgerSource {
  message: ChatMessage;
  step: number | null;
  status?: ToolStatus;
}

/** The agent state the runtime keeps (authoritative for plan, TODOs and approvals when given). */
export interface LedgerState {
  plan: string | null;
  todos: readonly TodoItem[];
  pendingApprovals?: readonly PendingApproval[];
}

/** Input of updateLedger. */
export interface LedgerInput {
  previous?: Ledger | null;
  /** The facts being compacted, in order. */
  messages: readonly LedgerSource[];
  state?: LedgerState | null;
}

/** A ledger with nothing in it. */
export function emptyLedger(): Ledger {
  return {
    version: 1,
    throughStep: null,
    changedFiles: [],
    readFiles: [],
    commands: [],
    errors: [],
    plan: null,
    todos: [],
    pendingApprovals: [],
    subAgents: [],
    userNotes: [],
    names: [],
  };
}

/** Stored facts as ledger sources (seq as the step, recorded tool status). */
export function ledgerSources(facts: readonly StoredMessage[]): LedgerSource[] {
  return facts.map((fact) => ({
    message: toChatMessage(fact),
    step: fact.seq,
    ...(fact.toolStatus ? { status: fact.toolStatus } : {}),
  }));
}

/** Moves an entry for `key` to the end (latest last), replacing any earlier one. */
function upsert<T>(list: T[], entry: T, same: (item: T) => boolean): void {
  const at = list.findIndex(same);
  if (at >= 0) list.splice(at, 1);
  list.push(entry);
}

/** Trimmed and cut at `max` characters, line breaks kept (a plan is read line by line). */
function clipText(text: string, max: number): string {
  const trimmed = text.trim();
  return trimmed.length <= max ? trimmed : `${trimmed.slice(0, max - 1)}…`;
}

function keepLast<T>(list: T[], limit: number): T[] {
  return list.length <= limit ? list : list.slice(list.length - limit);
}

/** First line of each sub-agent's part of a report (`## name (status)` sections, else the whole text). */
function reportLines(text: string, names: readonly string[]): Map<string, string> {
  const lines = new Map<string, string>();
  const sections = [...text.matchAll(/^## (.+?) \((\w+)\)\n([\s\S]*?)(?=\n## .+? \(\w+\)\n|$)/gm)];
  for (const [, name, status, body] of sections) {
    if (name === undefined) continue;
    const first = (body ?? "").split("\n").find((line) => line.trim().length > 0) ?? "(no report)";
    lines.set(name, clipLine(`${status}: ${first}`, LEDGER_LIMITS.reportChars));
  }
  if (sections.length === 0) {
    const first = text.split("\n").find((line) => line.trim().length > 0);
    for (const name of names)
      lines.set(name, first ? clipLine(first, LEDGER_LIMITS.reportChars) : "(no report)");
  }
  return lines;
}

/**
 * Folds the facts being compacted into the previous ledger: pure and deterministic (same facts,
 * same ledger). Only message text, tool calls and results are read, never provider-private state.
 * Failed calls change nothing, and a shell command changes files only when its result shows it
 * succeeded; exit codes are the result's own, never guessed. A later success of the same call (same
 * tool and target) marks an error resolved.
 */
export function updateLedger(input: LedgerInput): Ledger {
  const ledger: Ledger = structuredClone(input.previous ?? emptyLedger());
  const calls = new Map<string, { call: ToolCall; step: number | null }>();
  let openFile: string | null = null;
  const sightings: NameSighting[] = [];
  for (const { message, step, status } of input.messages) {
    if (step !== null) ledger.throughStep = Math.max(ledger.throughStep ?? step, step);
    const text = contentText(message.content);
    if (message.role === "assistant") {
      const inCalls = (message.tool_calls ?? []).flatMap((call) => namesInArguments(call.function.arguments));
      sightings.push({ names: [...new Set([...namesIn(text), ...inCalls])], step, used: true });
    } else if (message.role === "user") sightings.push({ names: namesIn(text), step, used: false });
    if (message.role === "user") {
      if (isWorkingStateNote(message, text)) {
        ledger.userNotes.push({ step, text: clipLine(text, LEDGER_LIMITS.noteChars) });
      }
      continue;
    }
    if (message.role === "assistant") {
      for (const call of message.tool_calls ?? []) calls.set(call.id, { call, step });
      continue;
    }
    if (message.role !== "tool" || message.tool_call_id === undefined) continue;
    const made = calls.get(message.tool_call_id);
    if (!made) continue;
    calls.delete(message.tool_call_id);
    const effects = callEffects(made.call, text, openFile);
    openFile = editorFileOf(text) ?? openFile;
    const file = effects.reads.length === 1 ? (effects.reads[0]?.path ?? null) : null;
    sightings.push({ names: namesIn(text), step: made.step, used: false, file });
    const outcome = resultOutcome(text, status, effects);
    const at = made.step;
    if (status === "cancelled") continue;
    // A shell command's text names the files it would change, its result does not report them: only
    // a success it shows confirms them. An editor tool's result is its own report on its file.
    if (effects.shell ? outcome.outcome === "ok" : !outcome.failed) {
      for (const change of effects.changes) {
        upsert(ledger.changedFiles, { path: change.path, action: change.action, step: at }, (item) => {
          return item.path === change.path;
        });
      }
    }
    if (effects.command !== null) {
      ledger.commands.push({
        command: effects.command,
        exitCode: outcome.exitCode,
        outcome: outcome.outcome,
        step: at,
      });
    }
    if (outcome.failed) {
      ledger.errors.push({
        step: at,
        call: effects.describe,
        line: outcome.line || "(no output)",
        exitCode: outcome.exitCode,
        key: effects.key,
        resolvedAt: null,
      });
      continue;
    }
    if (outcome.outcome === "ok") {
      for (const error of ledger.errors) {
        if (error.resolvedAt === null && error.key === effects.key) error.resolvedAt = at;
      }
    }
    for (const read of effects.reads) {
      upsert(
        ledger.readFiles,
        { path: read.path, ...(read.lines ? { lines: read.lines } : {}), step: at },
        (item) => {
          return item.path === read.path;
        },
      );
    }
    if (effects.todos) ledger.todos = effects.todos;
    if (effects.plan !== undefined) ledger.plan = clipText(effects.plan, LEDGER_LIMITS.planChars);
    if (effects.spawned) {
      const reports = reportLines(text, effects.spawned);
      for (const name of effects.spawned) {
        ledger.subAgents.push({ name, step: at, report: reports.get(name) ?? null });
      }
    }
  }
  if (input.state) {
    ledger.plan = input.state.plan === null ? null : clipText(input.state.plan, LEDGER_LIMITS.planChars);
    ledger.todos = [...input.state.todos];
    ledger.pendingApprovals = (input.state.pendingApprovals ?? [])
      .filter((approval) => approval.decision === undefined)
      .map(({ callId, toolName, arguments: args }) => ({ callId, toolName, arguments: args.slice(0, 300) }));
  } else ledger.pendingApprovals = [];
  ledger.names = foldNames(ledger.names ?? [], sightings);
  ledger.changedFiles = keepLast(ledger.changedFiles, LEDGER_LIMITS.changedFiles);
  ledger.readFiles = keepLast(ledger.readFiles, LEDGER_LIMITS.readFiles);
  ledger.commands = keepLast(ledger.commands, LEDGER_LIMITS.commands);
  ledger.errors = keepLast(ledger.errors, LEDGER_LIMITS.errors);
  ledger.subAgents = keepLast(ledger.subAgents, LEDGER_LIMITS.subAgents);
  ledger.userNotes = keepLast(ledger.userNotes, LEDGER_LIMITS.userNotes);
  return ledger;
}
