import type { TodoItem, ToolCall } from "@longrun/protocol";
import { parseArguments } from "../classify.ts";
import { lineSpan, PATH_KEYS, stringField } from "../describe-call.ts";
import type { ResultScope } from "./failure-text.ts";
import { patchEffects } from "./patch-effects.ts";
import { clipLine } from "./result-outcome.ts";
import { type FileChange, type FileRead, shellEffects } from "./shell-effects.ts";
import { segmentParts } from "./shell-words.ts";

/** What one tool call did, read off its name, arguments and result text. */
export interface CallEffects {
  reads: FileRead[];
  changes: FileChange[];
  /** A shell command that was not read-only (recorded with its exit code). */
  command: string | null;
  /** Whether the call only looked (a read-only command or a read/search tool). */
  readOnly: boolean;
  /** A shell command (whose changes only a shown success confirms: its text does not report them). */
  shell: boolean;
  /** Where its result speaks for itself (see ResultScope). */
  scope: ResultScope;
  /** The shell command's programs (null: not a shell call). */
  programs: string[] | null;
  /** What a later call must match to count as resolving this one's failure. */
  key: string;
  /** One-line description for the error record. */
  describe: string;
  todos?: TodoItem[];
  plan?: string;
  /** Sub-agents the call started (their reports are its result). */
  spawned?: string[];
}

/** Tool names by what they do; longrun's own tools plus the shapes found in agent transcripts. */
const SHELL = new Set([
  "bash",
  "run_command",
  "shell",
  "exec_command",
  "execute_command",
  "execute_bash",
  "run_shell_command",
  "terminal",
]);
const READ = new Set(["read_file", "read", "view", "cat", "open", "view_file", "notebookread"]);
const WRITE = new Set(["write_file", "write", "create", "create_file", "write_to_file"]);
const EDIT = new Set([
  "edit_file",
  "edit",
  "multiedit",
  "notebookedit",
  "str_replace",
  "insert",
  "replace",
  "replace_in_file",
]);
const EDITOR = new Set(["str_replace_editor", "str_replace_based_edit_tool", "text_editor"]);
const PATCH = new Set(["apply_patch", "patch"]);
const TODOS = new Set(["todo_write", "todowrite", "set_todos", "update_todos"]);
const PLAN = new Set(["update_plan", "set_plan"]);
const SPAWN = new Set(["spawn_agents", "task", "agent", "dispatch_agent"]);
const SEARCH = new Set([
  "grep",
  "glob",
  "list_dir",
  "ls",
  "find_file",
  "search_dir",
  "search_file",
  "web_search",
  "list_files",
  "search_files",
  "list_directory",
  "search_file_content",
  "read_many_files",
]);

const TODO_STATUS = new Set(["pending", "in_progress", "completed"]);

function normalizeName(name: string): string {
  return name.toLowerCase();
}

/** SWE-agent style `{"command": "open path 10"}` arguments: the words after the tool name. */
function commandWords(args: Record<string, unknown>, tool: string): string[] {
  const command = typeof args.command === "string" ? (args.command.split("\n", 1)[0] ?? "") : "";
  const words = segmentParts(command).argv;
  return words[0] === tool ? words.slice(1) : [];
}

/**
 * Path the arguments name (file_path, path, filename…); for SWE-agent's `open`/`create`, also the
 * first word of `{"command": "open path 10"}` (its `edit`/`insert` words are line numbers, not paths).
 */
function pathOf(args: Record<string, unknown>, tool: string): string | null {
  const named = stringField(args, [...PATH_KEYS.filter((key) => key !== "url"), "target_file"]);
  if (named !== null) return named;
  return tool === "open" || tool === "create" ? (commandWords(args, tool)[0] ?? null) : null;
}

/** `[File: /testbed/x.py (12 lines total)]` or `(Open file: /testbed/x.py)`: SWE-agent's editor names its file. */
export function editorFileOf(result: string): string | null {
  const header = result.match(/^\[File: (.+?) \(\d+ lines total\)\]/m)?.[1];
  if (header) return header.trim();
  const open = result.match(/\(Open file: (.+?)\)/)?.[1];
  return open && open !== "n/a" ? open.trim() : null;
}

function todosOf(value: unknown): TodoItem[] | undefined {
  if (!Array.isArray(value)) return undefined;
  return value.flatMap((item: unknown) => {
    const record = item as { content?: unknown; step?: unknown; status?: unknown } | null;
    const content = typeof record?.content === "string" ? record.content : record?.step;
    if (typeof content !== "string" || content.trim() === "") return [];
    const status = TODO_STATUS.has(String(record?.status))
      ? (record?.status as TodoItem["status"])
      : "pending";
    return [{ content: clipLine(content, 200), status }];
  });
}

/** Key of a shell command for resolution: its first non-`cd` program and first operand. */
function commandKey(command: string): string {
  for (const segment of command.split(/&&|\|\||;|\n|\|/)) {
    const argv = segmentParts(segment.trim()).argv.filter((word) => !word.startsWith("-"));
    if (argv.length === 0 || argv[0] === "cd") continue;
    return argv.slice(0, 2).join(" ");
  }
  return command.trim().slice(0, 60);
}

/** The programs a shell command line runs (basenames, after `VAR=x`, `sudo`, `time`). */
function programsOf(command: string): string[] {
  const names = new Set<string>();
  for (const segment of command.split(/&&|\|\||;|\n|\|/)) {
    let argv = segmentParts(segment.trim()).argv;
    while (argv[0] !== undefined && /^(?:[A-Za-z_]\w*=.*|sudo|time|command|env|timeout|\d+)$/.test(argv[0]))
      argv = argv.slice(1);
    const name = argv[0]?.split("/").pop();
    if (name) names.add(name);
  }
  return [...names];
}

/** Names of the sub-agents a spawn call starts. */
function spawnedNames(args: Record<string, unknown>): string[] {
  if (Array.isArray(args.agents)) {
    return args.agents.flatMap((agent: unknown) => {
      const name = (agent as { name?: unknown } | null)?.name;
      return typeof name === "string" ? [name] : [];
    });
  }
  const name = stringField(args, ["description", "subagent_type", "name"]);
  return [name ?? "sub-agent"];
}

/** The working-state effects of one call; `result` (the tool message text) settles ambiguous shapes. */
export function callEffects(call: ToolCall, result: string, openFile: string | null = null): CallEffects {
  const tool = normalizeName(call.function.name);
  const args = parseArguments(call.function.arguments) ?? {};
  const base = {
    reads: [] as FileRead[],
    changes: [] as FileChange[],
    command: null as string | null,
    readOnly: false,
    shell: false,
    scope: "report" as ResultScope,
    programs: null as string[] | null,
    describe: describeShort(call.function.name, args),
  };
  if (SHELL.has(tool)) {
    const command = stringField(args, ["command", "cmd", "script"]) ?? "";
    const effects = shellEffects(command);
    return {
      ...base,
      reads: effects.reads,
      changes: effects.changes,
      command: effects.changesSomething ? clipLine(command.split("\n", 1)[0] ?? "", 120) : null,
      readOnly: !effects.changesSomething,
      shell: true,
      scope: effects.changesSomething ? "run" : "look",
      programs: programsOf(command),
      key: `shell:${commandKey(command)}`,
    };
  }
  if (EDITOR.has(tool)) {
    const path = pathOf(args, tool);
    const verb = typeof args.command === "string" ? args.command : "";
    if (path === null) return { ...base, key: `${tool}:?` };
    if (verb === "view") return { ...base, readOnly: true, reads: [{ path }], key: `read:${path}` };
    const action = verb === "create" ? "created" : "edited";
    return { ...base, changes: [{ path, action }], key: `change:${path}` };
  }
  if (PATCH.has(tool)) {
    const text = stringField(args, ["input", "patch", "command", "diff"]) ?? call.function.arguments;
    const changes = patchEffects(text);
    return { ...base, changes, key: `patch:${changes.map((change) => change.path).join(",")}` };
  }
  if (READ.has(tool)) {
    const path = pathOf(args, tool) ?? editorFileOf(result);
    if (path === null) return { ...base, readOnly: true, key: `${tool}:?` };
    const span = lineSpan(args).replace(/^:/, "");
    return {
      ...base,
      readOnly: true,
      reads: [{ path, ...(span ? { lines: span } : {}) }],
      key: `read:${path}`,
    };
  }
  if (WRITE.has(tool) || EDIT.has(tool)) {
    const path = pathOf(args, tool) ?? editorFileOf(result) ?? openFile;
    if (path === null) return { ...base, key: `${tool}:?` };
    const created = tool === "create" || /^\s*(?:File )?created\b/i.test(result);
    const action = EDIT.has(tool) ? "edited" : created ? "created" : "written";
    return { ...base, changes: [{ path, action }], key: `change:${path}` };
  }
  if (TODOS.has(tool)) {
    const todos = todosOf(args.todos);
    return { ...base, ...(todos ? { todos } : {}), key: tool };
  }
  if (PLAN.has(tool)) {
    const todos = todosOf(args.plan);
    if (todos) return { ...base, todos, key: tool };
    const plan = typeof args.plan === "string" ? args.plan : null;
    return { ...base, ...(plan !== null ? { plan } : {}), key: tool };
  }
  if (SPAWN.has(tool)) return { ...base, spawned: spawnedNames(args), key: `spawn:${call.id}` };
  return {
    ...base,
    readOnly: SEARCH.has(tool),
    key: `${tool}:${call.function.arguments.slice(0, 80)}`,
  };
}

function describeShort(name: string, args: Record<string, unknown>): string {
  const command = stringField(args, ["command", "cmd", "script"]);
  if (command !== null) return `${name} \`${clipLine(command.split("\n", 1)[0] ?? "", 80)}\``;
  const path = stringField(args, PATH_KEYS);
  return path === null ? name : `${name} ${clipLine(path, 100)}`;
}
