import type { ToolCall } from "@longrun/protocol";
import { memoized, type ReductionCache } from "./reductions.ts";
import { estimateMessageTokens, type Tokenizer } from "./tokenizer.ts";
import type { ProjectionItem, StageResult } from "./types.ts";

/** Options of truncateArguments. */
export interface TruncateOptions {
  tokenizer: Tokenizer;
  /** Arguments longer than this (characters of JSON) are shortened. Default 2,000. */
  maxChars?: number;
  /** The most recent messages are never touched. Default 6. */
  recentMessages?: number;
  /** Per-fact results from earlier calls (truncated arguments, their messages' token counts). */
  cache?: ReductionCache;
}

const MIN_FIELD_CHARS = 200;

/** Marker that replaces a cut string field; says what was cut and how much (and how it began). */
export function truncationMarker(chars: number, what: string, beginning = ""): string {
  const began = beginning === "" ? "" : `, beginning: ${beginning}`;
  return `[truncated: ${chars.toLocaleString("en-US")} chars of ${what}${began}]`;
}

/** Fields holding a shell command: its first line names what it wrote (`cat > path << EOF`). */
const COMMAND_FIELDS = new Set(["command", "cmd"]);
const BEGINNING_CHARS = 160;

/** The first line of a command, clipped: what a truncation marker keeps of it. */
function commandBeginning(label: string, value: string): string {
  if (!COMMAND_FIELDS.has(label)) return "";
  const line = value.trimStart().split("\n", 1)[0]?.trim() ?? "";
  return line.length <= BEGINNING_CHARS ? line : `${line.slice(0, BEGINNING_CHARS - 1)}…`;
}

interface Leaf {
  holder: Record<string, unknown> | unknown[];
  key: string | number;
  value: string;
  label: string;
}

function collectLeaves(value: unknown, label: string, leaves: Leaf[]): void {
  if (Array.isArray(value)) {
    value.forEach((element, index) => {
      if (typeof element === "string") leaves.push({ holder: value, key: index, value: element, label });
      else collectLeaves(element, label, leaves);
    });
  } else if (typeof value === "object" && value !== null) {
    const record = value as Record<string, unknown>;
    for (const [key, element] of Object.entries(record)) {
      if (typeof element === "string") leaves.push({ holder: record, key, value: element, label: key });
      else collectLeaves(element, key, leaves);
    }
  }
}

/**
 * Shortens a tool-call arguments JSON to about maxChars by replacing its biggest string fields
 * with a marker; the result is always valid JSON. Unparseable arguments become
 * `{"truncated": marker}`. Returns the input when it is already small enough.
 */
export function truncateArgumentsJson(argumentsJson: string, maxChars: number): string {
  if (argumentsJson.length <= maxChars) return argumentsJson;
  let value: unknown;
  try {
    value = JSON.parse(argumentsJson);
  } catch {
    // Arguments that are not JSON are replaced whole by the marker.
    return JSON.stringify({ truncated: truncationMarker(argumentsJson.length, "unparseable arguments") });
  }
  const leaves: Leaf[] = [];
  collectLeaves(value, "content", leaves);
  leaves.sort((left, right) => right.value.length - left.value.length);
  let length = argumentsJson.length;
  for (const leaf of leaves) {
    if (length <= maxChars || leaf.value.length < MIN_FIELD_CHARS) break;
    const marker = truncationMarker(leaf.value.length, leaf.label, commandBeginning(leaf.label, leaf.value));
    const before = JSON.stringify(leaf.value).length;
    (leaf.holder as Record<string | number, unknown>)[leaf.key] = marker;
    length -= before - JSON.stringify(marker).length;
  }
  const result = JSON.stringify(value);
  return result.length < argumentsJson.length ? result : argumentsJson;
}

/**
 * Truncates oversized tool-call arguments of older assistant messages (write payloads that
 * already ran). The last `recentMessages` and locked items (active loop) stay verbatim.
 */
export function truncateArguments(items: readonly ProjectionItem[], options: TruncateOptions): StageResult {
  const maxChars = options.maxChars ?? 2_000;
  const firstRecent = items.length - (options.recentMessages ?? 6);
  let saved = 0;
  let cutCalls = 0;
  let cutChars = 0;
  const out = items.map((item, index) => {
    const calls = item.message.tool_calls;
    if (index >= firstRecent || item.locked || !calls) return item;
    let changed = false;
    const { cache } = options;
    const source = cache && item.sourceId !== undefined ? item.sourceId : null;
    const shortened: ToolCall[] = calls.map((call, callIndex) => {
      const cut = () => truncateArgumentsJson(call.function.arguments, maxChars);
      const key = source === null ? null : `${source}#${callIndex}@${maxChars}`;
      const next = cache && key !== null ? memoized(cache.args, key, cut) : cut();
      if (next === call.function.arguments) return call;
      changed = true;
      cutCalls++;
      cutChars += call.function.arguments.length - next.length;
      return { ...call, function: { ...call.function, arguments: next } };
    });
    if (!changed) return item;
    const message = { ...item.message, tool_calls: shortened };
    const tokens =
      cache && source !== null
        ? cache.messageTokens(`truncated:${source}@${maxChars}`, message, options.tokenizer)
        : estimateMessageTokens(message, options.tokenizer);
    saved += Math.max(0, item.tokens - tokens);
    return { ...item, message, tokens };
  });
  const removed =
    cutCalls === 0
      ? ""
      : `${cutChars.toLocaleString("en-US")} chars cut from ${cutCalls} tool-call arguments`;
  return { items: out, saved, removed };
}
