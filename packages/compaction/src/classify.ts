import { classifyShellCommand } from "./shell-command.ts";

/** What a tool call does, for the deterministic stages. */
export type ToolKind = "read" | "search" | "write" | "other";

/** How a tool name is treated: fixed kind, or "shell" (decided by its command). */
export type ToolClass = ToolKind | "shell";

/** Tool name → class. Unknown names are "other" (never collapsed). */
export type ToolClassification = Readonly<Record<string, ToolClass>>;

/** Defaults: common agent tools plus the names found in the corpus. */
export const defaultToolClassification: ToolClassification = {
  read_file: "read",
  Read: "read",
  open: "read",
  goto: "read",
  view: "read",
  cat: "read",
  WebFetch: "read",
  web_fetch: "read",
  list_dir: "search",
  LS: "search",
  ls: "search",
  grep: "search",
  Grep: "search",
  glob: "search",
  Glob: "search",
  web_search: "search",
  WebSearch: "search",
  search_dir: "search",
  search_file: "search",
  find_file: "search",
  bash: "shell",
  Bash: "shell",
  run_command: "shell",
  shell: "shell",
  Write: "write",
  Edit: "write",
  MultiEdit: "write",
  write_file: "write",
  edit_file: "write",
  create: "write",
  edit: "write",
  insert: "write",
};

/** Parses tool arguments JSON into an object, or null. */
export function parseArguments(argumentsJson: string): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(argumentsJson);
    return typeof value === "object" && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : null;
  } catch {
    // Arguments that are not JSON have no fields to classify by.
    return null;
  }
}

/** The shell command a shell tool call runs, if its arguments name one. */
export function shellCommandOf(argumentsJson: string): string | null {
  const args = parseArguments(argumentsJson);
  const command = args?.command ?? args?.cmd ?? args?.script;
  return typeof command === "string" ? command : null;
}

/** Classifies one call by the table; shell tools by whether their command only reads. */
export function classifyTool(
  name: string,
  argumentsJson: string,
  table: ToolClassification = defaultToolClassification,
): ToolKind {
  const toolClass = Object.hasOwn(table, name) ? table[name] : undefined;
  if (toolClass === undefined) return "other";
  if (toolClass !== "shell") return toolClass;
  const command = shellCommandOf(argumentsJson);
  return command === null ? "write" : classifyShellCommand(command);
}
