import type { ChatMessage, RestoredItem, TodoItem } from "@longrun/protocol";
import { decodeText } from "./binary.ts";
import { estimateMessageTokens, type Tokenizer } from "./tokenizer.ts";

/** A recently read file the caller re-read for restoration. */
export interface RestoredFile {
  path: string;
  content: string | Uint8Array;
  readAt: number;
  /**
   * `content` is the text a compaction already fitted (persisted with the event): inserted as it is,
   * outside the budgets, so every rebuild of the projection is the same.
   */
  fitted?: boolean;
  /**
   * Which version `content` is, named in the restored block: `current`, or the snapshot the agent last
   * saw (`as of message #N …`). Unset: the block reads as before versions were named.
   */
  version?: string;
}

/** Plan and TODO list to restore. */
export interface RestorableState {
  plan: string | null;
  todos: readonly TodoItem[];
}

/** Restoration budgets (tokens). */
export interface RestorationBudgets {
  maxFiles: number;
  perFileTokens: number;
  totalTokens: number;
}

export const DEFAULT_RESTORATION_BUDGETS: RestorationBudgets = {
  maxFiles: 5,
  perFileTokens: 2_000,
  totalTokens: 6_000,
};

/** Input of planRestoration. */
export interface RestorationInput {
  files?: readonly RestoredFile[];
  state?: RestorableState | null;
  tokenizer: Tokenizer;
  budgets?: Partial<RestorationBudgets>;
}

/** Messages to insert after the summary and what they hold. */
export interface RestorationPlan {
  messages: ChatMessage[];
  items: RestoredItem[];
  skipped: { path: string; reason: "binary" | "budget" | "duplicate" | "empty" }[];
}

const MIN_USEFUL_TOKENS = 100;

/** Cuts text at a line boundary so it fits `budget` tokens; returns [text, cut lines]. */
function fitText(text: string, budget: number, tokenizer: Tokenizer): [string, number] {
  let tokens = tokenizer.count(text);
  if (tokens <= budget) return [text, 0];
  const lines = text.split("\n");
  let keep = Math.max(0, Math.floor((lines.length * budget) / tokens));
  let kept = lines.slice(0, keep).join("\n");
  tokens = tokenizer.count(kept);
  while (keep > 0 && tokens > budget) {
    keep = Math.floor(keep * 0.8);
    kept = lines.slice(0, keep).join("\n");
    tokens = tokenizer.count(kept);
  }
  // A single huge line: fall back to a character cut.
  if (keep === 0 && lines.length > 0) kept = (lines[0] ?? "").slice(0, budget * 2);
  return [kept, lines.length - keep];
}

/** The file text as inserted: fitted lines plus a note on what was cut. */
function fittedBody(text: string, cutLines: number): string {
  return cutLines > 0
    ? `${text}\n[... ${cutLines} more lines not restored; read the file for the rest]`
    : text;
}

function fileMessage(file: RestoredFile, body: string): ChatMessage {
  const when = new Date(file.readAt).toISOString();
  const what =
    file.version === undefined ? `current contents of ${file.path}` : `${file.path} (${file.version})`;
  return {
    role: "user",
    content: `[Restored after compaction: ${what} (last read ${when})]\n<file path="${file.path}">\n${body}\n</file>`,
  };
}

/** The item's version field, when the file names one. */
const versionOf = (file: RestoredFile) => (file.version === undefined ? {} : { version: file.version });

function stateMessage(state: RestorableState): ChatMessage | null {
  const parts: string[] = [];
  if (state.plan && state.plan.trim().length > 0) parts.push(`Plan:\n${state.plan.trim()}`);
  if (state.todos.length > 0) {
    const mark = { pending: "[ ]", in_progress: "[~]", completed: "[x]" } as const;
    parts.push(`TODOs:\n${state.todos.map((todo) => `- ${mark[todo.status]} ${todo.content}`).join("\n")}`);
  }
  if (parts.length === 0) return null;
  return {
    role: "user",
    content: `[Restored after compaction: active plan and TODO list]\n${parts.join("\n\n")}`,
  };
}

/**
 * Chooses recently read text files (newest first) within count, per-file and total token
 * budgets — binary content is never inserted — and restores the plan and TODO list.
 */
export function planRestoration(input: RestorationInput): RestorationPlan {
  const budgets = { ...DEFAULT_RESTORATION_BUDGETS, ...input.budgets };
  const plan: RestorationPlan = { messages: [], items: [], skipped: [] };
  const files = [...(input.files ?? [])].sort((left, right) => right.readAt - left.readAt);
  const seen = new Set<string>();
  let total = 0;
  /** Puts one file's body (already within its budget) into the plan. */
  const restore = (file: RestoredFile, body: string) => {
    const message = fileMessage(file, body);
    const tokens = estimateMessageTokens(message, input.tokenizer);
    total += tokens;
    plan.messages.push(message);
    plan.items.push({
      kind: "file",
      path: file.path,
      tokens,
      content: body,
      fitted: true,
      ...versionOf(file),
    });
  };
  for (const file of files) {
    if (seen.has(file.path)) {
      plan.skipped.push({ path: file.path, reason: "duplicate" });
      continue;
    }
    seen.add(file.path);
    if (file.fitted) {
      const body = typeof file.content === "string" ? file.content : (decodeText(file.content) ?? "");
      restore(file, body);
      continue;
    }
    const text = decodeText(file.content);
    if (text === null) {
      plan.skipped.push({ path: file.path, reason: "binary" });
      continue;
    }
    if (text.trim().length === 0) {
      plan.skipped.push({ path: file.path, reason: "empty" });
      continue;
    }
    const budget = Math.min(budgets.perFileTokens, budgets.totalTokens - total);
    if (plan.items.length >= budgets.maxFiles || budget < MIN_USEFUL_TOKENS) {
      plan.skipped.push({ path: file.path, reason: "budget" });
      continue;
    }
    const [fitted, cutLines] = fitText(text, budget, input.tokenizer);
    restore(file, fittedBody(fitted, cutLines));
  }
  const state = input.state ? stateMessage(input.state) : null;
  if (state && input.state) {
    const tokens = estimateMessageTokens(state, input.tokenizer);
    plan.messages.push(state);
    if (input.state.plan) plan.items.push({ kind: "plan", tokens });
    if (input.state.todos.length > 0)
      plan.items.push({ kind: "todos", tokens: input.state.plan ? 0 : tokens });
  }
  return plan;
}
