import type { ToolCall } from "@longrun/protocol";
import { parseArguments, shellCommandOf } from "./classify.ts";

export const PATH_KEYS = ["file_path", "path", "file", "filename", "file_name", "notebook_path", "url"];
const PATTERN_KEYS = ["pattern", "query", "regex", "glob", "search_term"];
const MAX_FIELD = 120;

function clip(text: string, max = MAX_FIELD): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length <= max ? flat : `${flat.slice(0, max - 1)}…`;
}

/** The first non-empty string among `keys` of the arguments. */
export function stringField(args: Record<string, unknown>, keys: readonly string[]): string | null {
  for (const key of keys) {
    const value = args[key];
    if (typeof value === "string" && value.length > 0) return value;
  }
  return null;
}

function numberField(args: Record<string, unknown>, keys: readonly string[]): number | null {
  for (const key of keys) {
    const value = args[key];
    if (typeof value === "number" && Number.isFinite(value)) return value;
    if (typeof value === "string" && /^\d+$/.test(value)) return Number(value);
  }
  return null;
}

/** Line span named by the arguments (offset/limit, start/end, view_range), or "". */
export function lineSpan(args: Record<string, unknown>): string {
  const range = args.view_range;
  if (Array.isArray(range) && range.length === 2) return `:${String(range[0])}-${String(range[1])}`;
  const start = numberField(args, ["offset", "start_line", "startLine", "line_start", "line", "start"]);
  const end = numberField(args, ["end_line", "endLine", "line_end", "end"]);
  const limit = numberField(args, ["limit", "lines", "max_lines"]);
  if (start !== null && end !== null) return `:${start}-${end}`;
  if (start !== null && limit !== null) return `:${start}-${start + limit - 1}`;
  if (start !== null) return `:${start}-`;
  if (limit !== null) return `:1-${limit}`;
  return "";
}

/** Line spans of `sed -n 'a,bp'`, `head -n N` in a shell command, for the record. */
function shellSpans(command: string): string {
  const spans: string[] = [];
  for (const match of command.matchAll(/sed\s+-n\s+['"]?(\d+)(?:,(\d+))?p['"]?\s+(\S+)/g)) {
    spans.push(`${match[3]}:${match[1]}-${match[2] ?? match[1]}`);
  }
  return spans.length > 0 ? ` [${spans.join(", ")}]` : "";
}

/** A short description of a call: tool, paths, line spans, patterns. */
export function describeCall(call: ToolCall): string {
  const name = call.function.name;
  const command = shellCommandOf(call.function.arguments);
  if (command !== null) return `${name} \`${clip(command)}\`${shellSpans(command)}`;
  const args = parseArguments(call.function.arguments);
  if (args === null) return `${name} ${clip(call.function.arguments, 60)}`;
  const path = stringField(args, PATH_KEYS);
  const pattern = stringField(args, PATTERN_KEYS);
  const parts = [name];
  if (pattern !== null) parts.push(`'${clip(pattern, 80)}'`);
  if (path !== null) parts.push(`${pattern !== null ? "in " : ""}${clip(path)}${lineSpan(args)}`);
  if (pattern === null && path === null) parts.push(clip(call.function.arguments, 80));
  return parts.join(" ");
}

/** Status and size of a result for the record: "(ok, 42 lines)". */
export function describeResult(status: string, content: string): string {
  if (content.length === 0) return `(${status}, empty)`;
  const lines = content.split("\n").length;
  return `(${status}, ${lines} ${lines === 1 ? "line" : "lines"})`;
}
