import type { Ledger } from "@longrun/protocol";
import type { Tokenizer } from "../tokenizer.ts";
import { groupedNames, namesRanked, ownerOf, type SharedEntry } from "./names.ts";
import { clipLine } from "./result-outcome.ts";

export const LEDGER_HEADER =
  "[Working state — recorded by the runtime from the log, not summarized; #N = step]";
export const LEDGER_FOOTER = "[End of working state]";

/** Ledger budgets below this hold only the essentials: no names index. */
export const NAMES_MIN_BUDGET = 600;

/**
 * The most of a ledger's budget the names index may take (commands and older reads, at the same
 * rank, keep the rest). At 16k on the corpus 0.7 carries forward-use recall from 0.852 to 0.855 over
 * 0.55 at the same cost.
 */
export const NAMES_SHARE = 0.7;

/** Read files every rendering tries to keep (more only when the budget allows). */
export const RECENT_READS = 10;

/** A rendered ledger and what the budget left out. */
export interface RenderedLedger {
  text: string;
  tokens: number;
  /** Entries left out for the budget. */
  omitted: number;
}

type SectionName =
  | "error"
  | "approvals"
  | "todos"
  | "changed"
  | "read"
  | "plan"
  | "agents"
  | "notes"
  | "commands"
  | "errors"
  | "names";

const SECTION_TITLES: Record<SectionName, string> = {
  error: "Last error",
  approvals: "Pending approvals",
  todos: "TODOs",
  changed: "Files changed",
  read: "Files read (latest last)",
  plan: "Plan",
  agents: "Sub-agents",
  notes: "User said",
  commands: "Commands run (exit code, else the outcome shown; ? = none shown)",
  errors: "Earlier unresolved errors",
  names: "Names in use (file: names)",
};
/** Display order: what was done, then what is in flight, then context. */
const DISPLAY: SectionName[] = [
  "changed",
  "read",
  "error",
  "errors",
  "commands",
  "plan",
  "todos",
  "approvals",
  "agents",
  "notes",
  "names",
];

interface Entry extends SharedEntry {
  section: SectionName;
  /** Position within the section (oldest first). */
  order: number;
  text: string;
  rank: number;
  /** Step of the fact behind it, for newest-first within a rank across sections (-1: unknown). */
  recency: number;
}

function at(step: number | null): string {
  return step === null ? "" : ` #${step}`;
}

const TODO_MARK = { pending: "[ ]", in_progress: "[~]", completed: "[x]" } as const;

/**
 * A command's exit code when its result carried one, else the outcome the result shows: `ok`,
 * `failed`, or `?` (it shows none). Ledgers recorded before outcomes held a null code only for failures.
 */
function commandOutcome(command: Ledger["commands"][number]): string {
  // Exit 0 whose output shows a failure (a pipe's last program succeeded).
  if (command.exitCode === 0 && command.outcome === "failed") return "0 but failed";
  if (command.exitCode !== null) return String(command.exitCode);
  const outcome = command.outcome ?? "failed";
  return outcome === "unknown" ? "?" : outcome;
}

/**
 * What the request already shows beside the summary message (the pinned message and the kept tail,
 * which stay in every request until the next compaction): the ledger leaves out names and user notes
 * found there, so its budget goes to what the request would otherwise not hold.
 */
export interface VisibleContext {
  names: ReadonlySet<string>;
  text: string;
}

/**
 * Whether a user note is in the visible text: its text without the clip mark, found there with runs of
 * whitespace read as one space (a note is stored flattened to one line; the pinned task it came from
 * keeps its line breaks).
 */
function noteShown(note: string, flatVisible: string | null): boolean {
  if (flatVisible === null) return false;
  const body = note.replace(/…$/, "").trim();
  return body.length > 0 && flatVisible.includes(body);
}

/**
 * The names a listed file goes by: its path, and each tail of it at a folder boundary — its base name,
 * `lib/app.ex` for `/repo/lib/app.ex`, `repo/lib/app.ex` without the leading slash. A name among them is
 * shown in the file lists already; repeating it among the names would spend the budget on what the
 * request holds.
 */
function listedFileNames(paths: readonly string[]): Set<string> {
  const names = new Set<string>();
  for (const path of paths) {
    names.add(path);
    const parts = path.split("/");
    for (let from = 1; from < parts.length; from++) names.add(parts.slice(from).join("/"));
  }
  return names;
}

/** Every entry with its priority rank: lower ranks are kept first, and within a rank the newest. */
function entriesOf(
  ledger: Ledger,
  root: string | null = null,
  withNames = false,
  visible: VisibleContext | null = null,
): Entry[] {
  const entries: Entry[] = [];
  const show = (path: string) => (root !== null && path.startsWith(root) ? path.slice(root.length) : path);
  const push = (
    section: SectionName,
    order: number,
    text: string,
    rank: number,
    step: number | null = null,
  ) => entries.push({ section, order, text, rank, recency: step ?? -1 });
  const last = ledger.errors[ledger.errors.length - 1];
  if (last) {
    const resolution = last.resolvedAt === null ? "unresolved" : `resolved${at(last.resolvedAt)}`;
    const code = last.exitCode === null ? "" : ` exit ${last.exitCode}`;
    push("error", 0, `${last.call.trim()}${at(last.step)}${code} (${resolution}): ${last.line}`, 0);
  }
  ledger.errors.slice(0, -1).forEach((error, index) => {
    if (error.resolvedAt === null) push("errors", index, `${error.call}${at(error.step)}: ${error.line}`, 5);
  });
  ledger.pendingApprovals.forEach((approval, index) => {
    push(
      "approvals",
      index,
      `${approval.toolName} ${clipLine(approval.arguments, 120)} (call ${approval.callId})`,
      0,
    );
  });
  ledger.todos.forEach((todo, index) => {
    push("todos", index, `${TODO_MARK[todo.status]} ${todo.content}`, todo.status === "completed" ? 3 : 0);
  });
  ledger.changedFiles.forEach((file, index) => {
    // Paths stay whole (no shared folder): a reader that looks a file up finds it by its path.
    push("changed", index, `${show(file.path)} ${file.action}${at(file.step)}`, 1, file.step);
  });
  const reads = ledger.readFiles.length;
  const changed = new Set(ledger.changedFiles.map((file) => file.path));
  ledger.readFiles.forEach((file, index) => {
    // A file the agent changed is listed (whole path, latest step) among the changed files already.
    if (changed.has(file.path)) return;
    const lines = file.lines ? `:${file.lines}` : "";
    // Order says which read is latest; steps are left out to keep the list short.
    // The last reads compete with changed files by recency; older reads come last.
    push("read", index, `${show(file.path)}${lines}`, index >= reads - RECENT_READS ? 1 : 5, file.step);
  });
  if (ledger.plan) push("plan", 0, clipLine(ledger.plan, 400), 3);
  ledger.subAgents.forEach((agent, index) => {
    push("agents", index, `${agent.name}${at(agent.step)}: ${agent.report ?? "(no report yet)"}`, 4);
  });
  const flatVisible =
    visible === null || ledger.userNotes.length === 0 ? null : visible.text.replace(/\s+/g, " ");
  ledger.userNotes.forEach((note, index) => {
    if (noteShown(note.text, flatVisible)) return;
    push("notes", index, `${at(note.step).trim()} "${note.text}"`.trim(), 4);
  });
  if (withNames) {
    // Files the rendering keeps first (changed, the latest reads): a name that is one of them is shown there.
    const shown = [...ledger.changedFiles, ...ledger.readFiles.slice(-RECENT_READS)];
    const listed = listedFileNames(shown.map((file) => file.path));
    namesRanked(ledger.names ?? [])
      .filter(
        (entry) =>
          !listed.has(entry.name) &&
          !listed.has(entry.name.replace(/^\.?\//, "")) &&
          !visible?.names.has(entry.name),
      )
      .forEach((entry, index) => {
        const rank = entry.uses > 0 ? 5 : 6;
        const group = entry.file === null ? undefined : show(entry.file);
        const owner = ownerOf(entry.name);
        entries.push({
          section: "names",
          order: index,
          text: entry.name,
          rank,
          recency: entry.step ?? -1,
          ...(group ? { group } : {}),
          ...(owner ? { share: { prefix: `${owner.owner}.`, member: owner.member } } : {}),
        });
      });
  }
  ledger.commands.forEach((command, index) => {
    push("commands", index, `\`${command.command}\` ${commandOutcome(command)}${at(command.step)}`, 5);
  });
  return entries;
}

/** How the left-out entries are mentioned: per section, as one count, or not at all (tiny budgets). */
type OmittedNote = "sections" | "count" | "none";

function renderEntries(
  entries: readonly Entry[],
  omittedBySection: Map<SectionName, number>,
  root: string | null,
  note: OmittedNote = "sections",
): string {
  const lines = [LEDGER_HEADER];
  if (root !== null) lines.push(`Paths below are relative to ${root}`);
  const left: string[] = [];
  for (const section of DISPLAY) {
    const kept = entries.filter((entry) => entry.section === section).sort((a, b) => a.order - b.order);
    const omitted = omittedBySection.get(section) ?? 0;
    if (kept.length === 0) {
      if (omitted > 0) left.push(`${omitted} ${SECTION_TITLES[section].toLowerCase()}`);
      continue;
    }
    const more = omitted > 0 ? ` (+${omitted} older not shown)` : "";
    if (section === "names") {
      lines.push(`${SECTION_TITLES[section]}${more}: ${groupedNames(kept)}`);
      continue;
    }
    const separator = section === "plan" ? " " : "; ";
    lines.push(`${SECTION_TITLES[section]}${more}: ${kept.map((entry) => entry.text).join(separator)}`);
  }
  const total = [...omittedBySection.values()].reduce((sum, count) => sum + count, 0);
  if (left.length > 0 && note === "sections")
    lines.push(`Not shown for space: ${left.join(", ")} (see the history file)`);
  else if (total > 0 && note === "count") lines.push(`(${total} entries not shown for space)`);
  lines.push(LEDGER_FOOTER);
  return lines.join("\n");
}

/**
 * The directory whose removal from the ledger's absolute paths saves the most text (shared by at
 * least three of them), so each is shown relative to it; null when none is worth naming.
 */
export function commonRoot(paths: readonly string[]): string | null {
  const absolute = [...new Set(paths.filter((path) => path.startsWith("/")))];
  if (absolute.length < 3) return null;
  const counts = new Map<string, number>();
  for (const path of absolute) {
    const parts = path.split("/");
    for (let depth = 2; depth < parts.length; depth++) {
      const directory = `${parts.slice(0, depth).join("/")}/`;
      counts.set(directory, (counts.get(directory) ?? 0) + 1);
    }
  }
  let best: string | null = null;
  let bestSaving = 0;
  for (const [directory, count] of counts) {
    const saving = (count - 1) * directory.length;
    if (count < 3 || directory.length < 8) continue;
    if (saving > bestSaving || (saving === bestSaving && best !== null && directory < best)) {
      best = directory;
      bestSaving = saving;
    }
  }
  return best;
}

/**
 * The ledger as a compact, stable text block within `budgetTokens`: entries are kept by priority
 * (last error, pending approvals and open TODOs; changed files and the last RECENT_READS reads; plan
 * and done TODOs; sub-agents and user notes; commands and older entries) and, within a priority,
 * newest first; each section says how many older entries it left out. A file read and changed is
 * listed once, among the changed files. Names and user notes the request already shows (`visible`)
 * are left out. Same ledger, budget and visible context, same
 * text.
 */
export function renderLedger(
  ledger: Ledger,
  options: { budgetTokens: number; tokenizer: Tokenizer; visible?: VisibleContext | null },
): RenderedLedger {
  const { tokenizer } = options;
  const root = commonRoot([...ledger.changedFiles, ...ledger.readFiles].map((file) => file.path));
  // Names only where the budget holds the essentials and room besides, and never more than their share.
  const withNames = options.budgetTokens >= NAMES_MIN_BUDGET;
  const all = entriesOf(ledger, root, withNames, options.visible ?? null);
  const namesBudget = Math.floor(options.budgetTokens * NAMES_SHARE);
  let namesUsed = 0;
  const ordered = [...all].sort(
    (a, b) =>
      a.rank - b.rank || b.recency - a.recency || a.section.localeCompare(b.section) || b.order - a.order,
  );
  const fixed =
    tokenizer.count(`${LEDGER_HEADER}\n${LEDGER_FOOTER}`) +
    (root === null ? 0 : tokenizer.count(`Paths below are relative to ${root}`) + 1);
  let used = fixed;
  const kept: Entry[] = [];
  const closed = new Set<SectionName>();
  // Prefixes (per section and file) of the entries kept so far: a further member costs only its own part.
  const prefixes = new Set<string>();
  for (const entry of ordered) {
    if (closed.has(entry.section)) continue;
    // An entry costs its text, a separator, and its section's title line the first time.
    const title = kept.some((other) => other.section === entry.section)
      ? 0
      : tokenizer.count(SECTION_TITLES[entry.section]) + 8;
    const shareKey = entry.share
      ? `${entry.section}\u0000${entry.group ?? ""}\u0000${entry.share.prefix}`
      : null;
    const text = entry.share && shareKey !== null && prefixes.has(shareKey) ? entry.share.member : entry.text;
    const cost = tokenizer.count(text) + 1 + title;
    const overShare = entry.section === "names" && namesUsed + cost > namesBudget;
    if (used + cost > options.budgetTokens || overShare) {
      // Keep newest-first runs unbroken: an older entry never shows while a newer one is left out.
      closed.add(entry.section);
      continue;
    }
    used += cost;
    if (entry.section === "names") namesUsed += cost;
    if (shareKey !== null) prefixes.add(shareKey);
    kept.push(entry);
  }
  const omittedBySection = (entries: readonly Entry[]) => {
    const counts = new Map<SectionName, number>();
    for (const entry of all) {
      if (!entries.includes(entry)) counts.set(entry.section, (counts.get(entry.section) ?? 0) + 1);
    }
    return counts;
  };
  // The per-entry sum is an estimate: drop the lowest-priority entries until the text fits. The
  // note on what was left out may take less room instead (one count, or nothing on tiny budgets):
  // whichever keeps the most entries wins.
  let best: { text: string; tokens: number; kept: number } | null = null;
  for (const note of ["sections", "count", "none"] as const) {
    const trial = [...kept];
    let text = renderEntries(trial, omittedBySection(trial), root, note);
    let tokens = tokenizer.count(text);
    while (tokens > options.budgetTokens && trial.length > 0) {
      trial.pop();
      text = renderEntries(trial, omittedBySection(trial), root, note);
      tokens = tokenizer.count(text);
    }
    const fits = tokens <= options.budgetTokens;
    if (fits && (best === null || trial.length > best.kept)) best = { text, tokens, kept: trial.length };
    if (fits && trial.length === kept.length) break;
    if (best === null && note === "none") best = { text, tokens, kept: trial.length };
  }
  const chosen = best as { text: string; tokens: number; kept: number };
  return { text: chosen.text, tokens: chosen.tokens, omitted: all.length - chosen.kept };
}

/** Whether a ledger holds anything worth rendering. */
export function isEmptyLedger(ledger: Ledger): boolean {
  return entriesOf(ledger).length === 0;
}
