import { emptyLedger, type LedgerSource, RECENT_READS, updateLedger } from "@longrun/compaction";
import { type ChatMessage, contentText, type Ledger } from "@longrun/protocol";

/** The working-state facts a request should still carry after a compaction (issue 12's categories). */
export const RETENTION_CATEGORIES = ["filesWritten", "filesRead", "lastError", "todos"] as const;
export type RetentionCategory = (typeof RETENTION_CATEGORIES)[number];

/** Facts of the raw prefix, per category. */
export type WorkingFacts = Record<RetentionCategory, string[]>;

/** How many of a category's facts one request still carries. */
export interface CategoryCount {
  present: number;
  total: number;
}
export type Retention = Record<RetentionCategory, CategoryCount>;

/**
 * Walks the raw facts as they arrive and says what the agent knew at each point: every file it
 * created, wrote or edited; the last RECENT_READS files it read; the telling line of its last failing
 * tool result; its TODO items. The same reading of tool calls the ledger uses (one view of the
 * working state), but over the raw facts, uncompacted.
 */
export class WorkingFactsTracker {
  private ledger: Ledger = emptyLedger();

  /** Folds the next raw facts in (a call and its results arrive in the same batch). */
  add(sources: readonly LedgerSource[]): void {
    this.ledger = updateLedger({ previous: this.ledger, messages: sources });
  }

  facts(): WorkingFacts {
    const last = this.ledger.errors[this.ledger.errors.length - 1];
    return {
      filesWritten: this.ledger.changedFiles.map((file) => file.path),
      filesRead: this.ledger.readFiles.slice(-RECENT_READS).map((file) => file.path),
      // A failure that printed nothing is known by its call: the command (or tool and path) itself.
      lastError: last ? [last.line === "(no output)" ? callText(last.call) : last.line] : [],
      todos: this.ledger.todos.map((todo) => todo.content),
    };
  }
}

/** The command inside a call description ("bash `make all`" → "make all"), else the description. */
function callText(call: string): string {
  return call.match(/`(.*)`$/)?.[1] ?? call;
}

/** String values inside a JSON text (tool arguments), so escaped quotes and newlines read as text. */
function jsonStrings(json: string): string[] {
  try {
    const strings: string[] = [];
    const walk = (value: unknown) => {
      if (typeof value === "string") strings.push(value);
      else if (Array.isArray(value)) value.forEach(walk);
      else if (value !== null && typeof value === "object") Object.values(value).forEach(walk);
    };
    walk(JSON.parse(json));
    return strings;
  } catch {
    // Not JSON: the text itself is the one string to look for.
    return [json];
  }
}

/** Everything a request says, as one text: contents, tool names and argument strings. */
export function requestText(messages: readonly ChatMessage[]): string {
  const parts: string[] = [];
  for (const message of messages) {
    parts.push(contentText(message.content));
    for (const call of message.tool_calls ?? []) {
      parts.push(call.function.name, ...jsonStrings(call.function.arguments));
    }
  }
  return parts.join("\n");
}

const PATH_CHAR = /[A-Za-z0-9_.-]/;

/** `needle` occurs in `text` as a whole path (not inside a longer name). */
function containsPath(text: string, needle: string): boolean {
  for (let at = text.indexOf(needle); at >= 0; at = text.indexOf(needle, at + 1)) {
    const before = at === 0 ? "" : (text[at - 1] as string);
    const after = text[at + needle.length] ?? "";
    const next = text[at + needle.length + 1] ?? "";
    const endsHere = !/[A-Za-z0-9_-]/.test(after) && !(after === "." && /[A-Za-z0-9]/.test(next));
    if (!PATH_CHAR.test(before) && endsHere) return true;
  }
  return false;
}

/**
 * A path is still known when the request names it whole, or names a directory of it and the rest of
 * the path below that directory (a list "relative to D").
 */
export function knowsPath(text: string, path: string): boolean {
  if (containsPath(text, path)) return true;
  for (let cut = path.indexOf("/", 1); cut > 0 && cut < path.length - 1; cut = path.indexOf("/", cut + 1)) {
    const directory = path.slice(0, cut + 1);
    if (text.includes(directory) && containsPath(text, path.slice(cut + 1))) return true;
  }
  return false;
}

function flat(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

/** A line is still known when the request holds it (whitespace aside; a clipped line by its kept part). */
export function knowsLine(flatText: string, line: string): boolean {
  const needle = flat(line).replace(/…$/, "");
  return needle.length > 0 && flatText.includes(needle);
}

/** Which facts one request still carries. */
export function retentionOf(messages: readonly ChatMessage[], facts: WorkingFacts): Retention {
  const text = requestText(messages);
  const flatText = flat(text);
  const count = (items: readonly string[], known: (item: string) => boolean): CategoryCount => ({
    present: items.filter(known).length,
    total: items.length,
  });
  return {
    filesWritten: count(facts.filesWritten, (path) => knowsPath(text, path)),
    filesRead: count(facts.filesRead, (path) => knowsPath(text, path)),
    lastError: count(facts.lastError, (line) => knowsLine(flatText, line)),
    todos: count(facts.todos, (todo) => knowsLine(flatText, todo)),
  };
}
