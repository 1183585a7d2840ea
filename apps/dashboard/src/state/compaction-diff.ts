import type { CompactionCoverage, ContextView, Ledger, StoredMessage, ToolCall } from "@longrun/protocol";
import { clip, textOf } from "../lib/format.ts";

/** One ledger entry, by the section the ledger view and the rendered ledger show it under. */
export interface LedgerEntryRef {
  section:
    | "Files changed"
    | "Files read"
    | "Commands"
    | "Errors"
    | "TODOs"
    | "Plan"
    | "Sub-agents"
    | "User said"
    | "Names in use";
  text: string;
}

/** A message a compaction removed, in one line, and the ledger entries that now stand for it (none: not carried). */
export interface RemovedLine {
  seq: number;
  role: StoredMessage["role"];
  /** What the message was: its text, or its calls, or the result of which call. */
  what: string;
  /** Set on a tool result whose call failed (its status, or a ledger error cites it). */
  failed: boolean;
  carriedBy: LedgerEntryRef[];
}

const LINE_CHARS = 140;
/** Argument keys that name a file (those the ledger's call reader uses). */
const PATH_KEYS = ["file_path", "filePath", "path", "file", "filename", "file_name", "notebook_path"];
/** Names of the names index shown on one line at most. */
const NAMES_PER_LINE = 5;

function at(step: number | null): string {
  return step === null ? "" : ` #${step}`;
}

function parseArguments(call: ToolCall): Record<string, unknown> {
  try {
    const parsed: unknown = JSON.parse(call.function.arguments);
    return typeof parsed === "object" && parsed !== null ? (parsed as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

function pathsOf(args: Record<string, unknown>): string[] {
  return PATH_KEYS.flatMap((key) => (typeof args[key] === "string" ? [args[key] as string] : []));
}

/** A call as one short line: `write_file(SIM_NOTES.md)`, `run_command(npm test)`. */
function callText(call: ToolCall): string {
  const args = parseArguments(call);
  const target = pathsOf(args)[0] ?? (typeof args.command === "string" ? args.command : null);
  return `${call.function.name}(${target === null ? "…" : clip(target, 60).text})`;
}

/** Same path, or the ledger's path is the call's relative one under some folder (or the other way round). */
function samePath(ledgerPath: string, callPath: string): boolean {
  const bare = (path: string) => path.replace(/^\.\//, "");
  const a = bare(ledgerPath);
  const b = bare(callPath);
  return a === b || a.endsWith(`/${b}`) || b.endsWith(`/${a}`);
}

/** A file entry of the ledger: its section, path, the step it cites, and its text (`later`: a note on that step). */
interface FileEntry {
  section: "Files changed" | "Files read";
  path: string;
  step: number | null;
  text: (later: string) => string;
}

/**
 * The files a call changed or read, as the ledger has them: the entries that cite the call's step (for the
 * paths it names, if it names any); when none does, a later call of the same file superseded them, and the
 * entries of its paths stand for it (those of files changed for a call that wrote, of files read otherwise).
 */
function fileEntriesOfCall(ledger: Ledger, args: Record<string, unknown>, step: number): LedgerEntryRef[] {
  const paths = pathsOf(args);
  const files: FileEntry[] = [
    ...ledger.changedFiles.map((file) => ({
      section: "Files changed" as const,
      path: file.path,
      step: file.step,
      text: (later: string) => `${file.path} (${file.action}${at(file.step)}${later})`,
    })),
    ...ledger.readFiles.map((file) => ({
      section: "Files read" as const,
      path: file.path,
      step: file.step,
      text: (later: string) => `${file.path}${file.lines ? `:${file.lines}` : ""}${at(file.step)}${later}`,
    })),
  ];
  const named = (entry: FileEntry) => paths.some((path) => samePath(entry.path, path));
  const cited = files.filter((entry) => entry.step === step && (paths.length === 0 || named(entry)));
  // Superseded: a call that sends text besides its path (a body, a replacement) wrote the file, else read it.
  const writes = Object.entries(args).some(
    ([key, value]) => typeof value === "string" && !PATH_KEYS.includes(key),
  );
  const superseded = files.filter(named);
  const ofKind = superseded.filter((entry) => (entry.section === "Files changed") === writes);
  const chosen = cited.length > 0 ? cited : ofKind.length > 0 ? ofKind : superseded;
  return chosen.map((entry) => ({
    section: entry.section,
    text: entry.text(entry.step !== null && entry.step > step ? ", a later call" : ""),
  }));
}

/**
 * The ledger entries that stand for one tool call made at `step`: the files it changed or read, the command
 * it ran, the error it failed with, the sub-agents it spawned, and the TODO list or plan it set.
 */
function entriesOfCall(ledger: Ledger, call: ToolCall, step: number): LedgerEntryRef[] {
  const args = parseArguments(call);
  const paths = pathsOf(args);
  const found = fileEntriesOfCall(ledger, args, step);
  for (const command of ledger.commands) {
    if (command.step === step && (paths.length === 0 || typeof args.command === "string"))
      found.push({
        section: "Commands",
        text: `${clip(command.command, 80).text} → ${command.exitCode ?? "?"}`,
      });
  }
  for (const error of ledger.errors) {
    if (error.step === step && (paths.length === 0 || paths.some((path) => error.call.includes(path))))
      found.push({
        section: "Errors",
        text: `${clip(error.line, 100).text} (${error.resolvedAt === null ? "unresolved" : `resolved${at(error.resolvedAt)}`})`,
      });
  }
  for (const agent of ledger.subAgents) {
    if (agent.step === step) found.push({ section: "Sub-agents", text: agent.name });
  }
  if (Array.isArray(args.todos) && ledger.todos.length > 0) {
    const open = ledger.todos.filter((todo) => todo.status !== "completed").length;
    found.push({ section: "TODOs", text: `the list as it stands: ${open} open of ${ledger.todos.length}` });
  }
  if (typeof args.plan === "string" && ledger.plan)
    found.push({ section: "Plan", text: clip(ledger.plan, 80).text });
  return found;
}

/**
 * Names of the ledger's names index that a text uses as whole words, less the names of the tools the
 * message calls (a tool's name says nothing the call's own entries do not).
 */
function namesUsed(ledger: Ledger, text: string, tools: ReadonlySet<string>): LedgerEntryRef[] {
  if (!text) return [];
  const used = (ledger.names ?? []).filter(({ name }) => {
    if (tools.has(name)) return false;
    const from = text.indexOf(name);
    if (from < 0) return false;
    const before = text[from - 1] ?? " ";
    const after = text[from + name.length] ?? " ";
    return !/[\w.]/.test(before) && !/\w/.test(after);
  });
  if (used.length === 0) return [];
  const shown = used.slice(0, NAMES_PER_LINE).map((entry) => entry.name);
  const more = used.length > shown.length ? ` +${used.length - shown.length}` : "";
  return [{ section: "Names in use", text: `${shown.join(", ")}${more}` }];
}

/**
 * Each message a compaction took out of the context (its coverage's range, less what the projection still
 * sends), as one line beside the entries of the compaction's ledger that cite it: a call by the step it was
 * made at (an entry's `#N` is the seq of the assistant message that made the call) or the file it names, a
 * tool result by its call, a user message by the note the ledger kept of it, an assistant's text by the
 * names of the names index it uses. A line with none is not carried: only the summary may mention it.
 */
export function removedLines(
  messages: readonly StoredMessage[],
  coverage: CompactionCoverage,
  ledger: Ledger | null,
): RemovedLine[] {
  const kept = new Set(coverage.kept.map((item) => item.seq));
  const calls = new Map<string, { call: ToolCall; step: number }>();
  for (const message of messages) {
    for (const call of message.toolCalls ?? []) calls.set(call.id, { call, step: message.seq });
  }
  const removed = messages.filter(
    (message) => message.seq >= coverage.fromSeq && message.seq <= coverage.toSeq && !kept.has(message.seq),
  );
  return removed.map((message) => {
    const text = textOf(message.content).replace(/\s+/g, " ").trim();
    if (message.role === "tool") {
      const made = message.toolCallId ? calls.get(message.toolCallId) : undefined;
      const carriedBy = made && ledger ? entriesOfCall(ledger, made.call, made.step) : [];
      const failed = message.toolStatus === "error" || carriedBy.some((entry) => entry.section === "Errors");
      const name = made ? callText(made.call) : (message.toolCallId ?? "a call");
      return {
        seq: message.seq,
        role: message.role,
        what: `result of ${name}: ${clip(text, LINE_CHARS).text}`,
        failed,
        carriedBy,
      };
    }
    const toolCalls = message.toolCalls ?? [];
    const carriedBy: LedgerEntryRef[] = [];
    if (ledger && message.role === "assistant") {
      for (const call of toolCalls) carriedBy.push(...entriesOfCall(ledger, call, message.seq));
      carriedBy.push(...namesUsed(ledger, text, new Set(toolCalls.map((call) => call.function.name))));
    }
    if (ledger && message.role === "user") {
      for (const note of ledger.userNotes)
        if (note.step === message.seq)
          carriedBy.push({ section: "User said", text: clip(note.text, 100).text });
    }
    const callsText = toolCalls.map(callText).join(", ");
    const what = [clip(text, LINE_CHARS).text, callsText && `→ ${callsText}`].filter(Boolean).join(" ");
    return { seq: message.seq, role: message.role, what: what || "(empty)", failed: false, carriedBy };
  });
}

/** One check of what the next request must still hold. */
export interface RequestCheck {
  what: "Files written" | "Last error" | "Open TODOs";
  /** null: the ledger has nothing of the kind, so there is nothing to check. */
  ok: boolean | null;
  detail: string;
}

/** Everything the request sends as text: message contents and call arguments. */
function requestText(view: ContextView): string {
  return view.messages
    .map((message) =>
      [textOf(message.content), ...(message.tool_calls ?? []).map((call) => call.function.arguments)].join(
        "\n",
      ),
    )
    .join("\n");
}

/** The folders the rendered ledger names its paths relative to ("Paths below are relative to /x/"). */
function relativeRoots(text: string): string[] {
  return [...text.matchAll(/Paths below are relative to (\S+)/g)].flatMap((match) =>
    match[1] ? [match[1]] : [],
  );
}

function holdsPath(text: string, roots: readonly string[], path: string): boolean {
  if (text.includes(path)) return true;
  return roots.some((root) => path.startsWith(root) && text.includes(path.slice(root.length)));
}

/**
 * Whether the next request (the server's projection, GET /v1/agents/:id/context) still holds what the
 * compaction's ledger says matters most: every file written, the last error, the open TODOs — found as
 * text anywhere in it (the ledger rendered in the summary, a restored file, a recent message).
 */
export function requestChecks(ledger: Ledger, view: ContextView): RequestCheck[] {
  const text = requestText(view);
  const roots = relativeRoots(text);
  const written = ledger.changedFiles.map((file) => file.path);
  const missingFiles = written.filter((path) => !holdsPath(text, roots, path));
  const last = ledger.errors.at(-1);
  const lastLine = last?.line.replace(/…$/, "").trim() ?? "";
  const open = ledger.todos.filter((todo) => todo.status !== "completed");
  const missingTodos = open.filter((todo) => !text.includes(todo.content));
  return [
    {
      what: "Files written",
      ok: written.length === 0 ? null : missingFiles.length === 0,
      detail:
        written.length === 0
          ? "the ledger records no file written"
          : missingFiles.length === 0
            ? `all ${written.length} named: ${written.join(", ")}`
            : `missing ${missingFiles.length} of ${written.length}: ${missingFiles.join(", ")}`,
    },
    {
      what: "Last error",
      ok: last ? text.includes(lastLine) : null,
      detail: last
        ? `${last.call}${at(last.step)}: ${clip(last.line, 100).text}${last.resolvedAt === null ? "" : ` (resolved${at(last.resolvedAt)})`}`
        : "the ledger records no error",
    },
    {
      what: "Open TODOs",
      ok: open.length === 0 ? null : missingTodos.length === 0,
      detail:
        open.length === 0
          ? "the ledger records no open TODO"
          : missingTodos.length === 0
            ? `all ${open.length} named: ${open.map((todo) => todo.content).join("; ")}`
            : `missing ${missingTodos.length} of ${open.length}: ${missingTodos.map((todo) => todo.content).join("; ")}`,
    },
  ];
}
