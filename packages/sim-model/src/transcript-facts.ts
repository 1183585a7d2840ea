import { scanMarkers } from "./markers.ts";
import { commandArgument, pathArgument, type ToolRole, type ToolRoles } from "./scripts/tool-roles.ts";
import { contentText, type WireMessage } from "./wire.ts";

export interface TodoItem {
  content: string;
  status: string;
}

/** What can be read off a transcript: the inputs of both the summarizer and the scripted agents. */
export interface TranscriptFacts {
  userTexts: string[];
  assistantTexts: string[];
  previousSummaries: string[];
  toolCounts: Map<string, number>;
  /** Path -> actions seen on it (read, listed, written, edited, searched), first appearance first. */
  files: Map<string, Set<string>>;
  /** File paths found in tool results and summaries (candidates to read). */
  discovered: Set<string>;
  todos: TodoItem[] | undefined;
  plan: string | undefined;
  toolErrors: number;
  step: number;
  done: number;
  /** Assistant messages with tool calls after the last user message (fallback step counter). */
  toolTurnsSinceUser: number;
}

const PATH_PATTERN = /(?:\.{0,2}\/)?(?:[\w@.-]+\/)*[\w@-][\w@.-]*\.[A-Za-z][A-Za-z0-9]{0,7}\b/g;
const IGNORED = /(^|\/)(node_modules|\.git|\.longrun|dist)(\/|$)|^https?:|^\d+\.\d+/;
const SUMMARY_PREFIX = "<sim-summary v=1";
/** A `[tool result <id>]` block of a transcript rendered as text, up to the next `[role…]` header. */
const RENDERED_TOOL_RESULT =
  /\[tool result [^\]\n]*\][\s\S]*?(?=\n\[(?:user|assistant|system|tool result)|$)/g;
const ACTIONS: Record<string, string> = {
  read_file: "read",
  list_dir: "listed",
  write_file: "written",
  edit_file: "edited",
  grep: "searched",
  // opencode's file tools
  read: "read",
  write: "written",
  edit: "edited",
  // Claude Code's
  Read: "read",
  Write: "written",
  Edit: "edited",
};
/** Tools that run a shell command (Codex `exec_command` / `shell`, opencode `bash`, Claude Code `Bash`). */
const SHELL_TOOLS = new Set(["exec_command", "shell", "bash", "run_command", "Bash"]);
/** Tools whose output lists or searches files (their paths are candidates to read). */
const LISTING_TOOLS = new Set(["list_dir", "glob", "grep", "Glob", "Grep"]);

/** The shell command of a shell tool call, whatever the client calls its argument. */
export function shellCommand(name: string, args: Record<string, unknown>): string | undefined {
  if (!SHELL_TOOLS.has(name)) return undefined;
  const command = args.cmd ?? args.command;
  if (typeof command === "string") return command;
  if (Array.isArray(command)) return command.map(String).at(-1);
  return undefined;
}

/** The command of a call by a tool recognized as a shell. */
function roleCommand(
  tool: ReturnType<ToolRoles["byName"]["get"]>,
  args: Record<string, unknown>,
): string | undefined {
  return tool?.role === "shell" ? commandArgument(tool, args) : undefined;
}

/** What a simple shell command does to one file: `cat f`, `sed -n '…' f`, `cat > f <<…`, `sed -i … f`. */
function shellFileAction(command: string): { path: string; action: string } | undefined {
  const written = /^cat > (\S+) <</.exec(command);
  if (written) return { path: written[1]!, action: "written" };
  const edited = /^sed -i .* (\S+)$/.exec(command.split("\n")[0]!);
  if (edited) return { path: edited[1]!, action: "edited" };
  const read = /^(?:cat|sed -n '[^']*'|head(?: -n \d+)?) (\S+)$/.exec(command.trim());
  if (read) return { path: read[1]!, action: "read" };
  return undefined;
}

function parseArguments(text: string): Record<string, unknown> {
  try {
    const parsed: unknown = JSON.parse(text);
    return typeof parsed === "object" && parsed !== null ? (parsed as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/** Path-like tokens in a text (relative to `base` when they are bare names from a directory listing). */
export function extractPaths(text: string, base = "."): string[] {
  const found: string[] = [];
  for (const match of text.matchAll(PATH_PATTERN)) {
    // The tail of a clipped word ("…er.ts" of a line cut short) names no file.
    if (text[(match.index ?? 0) - 1] === "…") continue;
    let path = match[0].replace(/^\.\//, "");
    if (IGNORED.test(path)) continue;
    if (base !== "." && base !== "" && !path.includes("/")) path = `${base.replace(/\/$/, "")}/${path}`;
    found.push(path);
  }
  return found;
}

function noteFile(facts: TranscriptFacts, path: string, action: string): void {
  const actions = facts.files.get(path) ?? new Set<string>();
  actions.add(action);
  facts.files.set(path, actions);
}

/** What a call by a tool in each role does to the file it names. */
const ROLE_ACTIONS: Partial<Record<ToolRole, string>> = {
  read: "read",
  write: "written",
  edit: "edited",
  list: "listed",
  search: "searched",
};

/**
 * Read the facts off a list of messages (instructions already removed by the caller if need be).
 * `roles`: the offered tools' roles, so any client's tools count (not only the known names).
 */
export function readTranscript(messages: readonly WireMessage[], roles?: ToolRoles): TranscriptFacts {
  const facts: TranscriptFacts = {
    userTexts: [],
    assistantTexts: [],
    previousSummaries: [],
    toolCounts: new Map(),
    files: new Map(),
    discovered: new Set(),
    todos: undefined,
    plan: undefined,
    toolErrors: 0,
    step: 0,
    done: 0,
    toolTurnsSinceUser: 0,
  };
  const calls = new Map<string, { name: string; args: Record<string, unknown> }>();
  for (const message of messages) {
    const text = contentText(message.content);
    // A tool result is someone else's output (a sub-agent's report ends with its own done marker):
    // only this agent's messages and summaries say how far it got, also in a transcript rendered as text.
    if (message.role !== "tool") {
      const own = text.replace(RENDERED_TOOL_RESULT, "");
      const markers = scanMarkers(`${own} ${(message.tool_calls ?? []).map((call) => call.id).join(" ")}`);
      facts.step = Math.max(facts.step, markers.step);
      facts.done = Math.max(facts.done, markers.done);
    }
    if (text.includes(SUMMARY_PREFIX)) {
      facts.previousSummaries.push(text);
      for (const path of extractPaths(text)) facts.discovered.add(path);
      continue;
    }
    if (message.role === "user") {
      facts.userTexts.push(text);
      // A transcript rendered as text still names its files in JSON arguments.
      for (const match of text.matchAll(/"path"\s*:\s*"([^"\n]{1,200})"/g))
        noteFile(facts, match[1]!, "mentioned");
      facts.toolTurnsSinceUser = 0;
    } else if (message.role === "assistant") {
      if (text.trim()) facts.assistantTexts.push(text.trim());
      if (message.tool_calls?.length) facts.toolTurnsSinceUser += 1;
      for (const call of message.tool_calls ?? []) {
        const name = call.function.name;
        const args = parseArguments(call.function.arguments);
        calls.set(call.id, { name, args });
        facts.toolCounts.set(name, (facts.toolCounts.get(name) ?? 0) + 1);
        const recognized = roles?.byName.get(name);
        const target = typeof args.path === "string" ? args.path : (args.filePath ?? args.file_path);
        const roleAction = recognized ? ROLE_ACTIONS[recognized.role] : undefined;
        const rolePath = recognized ? pathArgument(recognized, args) : undefined;
        if (typeof target === "string" && ACTIONS[name]) noteFile(facts, target, ACTIONS[name]);
        else if (rolePath && roleAction) noteFile(facts, rolePath, roleAction);
        const command = shellCommand(name, args) ?? roleCommand(recognized, args);
        const onFile = command ? shellFileAction(command) : undefined;
        if (onFile) noteFile(facts, onFile.path.replace(/^\.\//, ""), onFile.action);
        if (name === "todo_write" && Array.isArray(args.todos)) {
          facts.todos = args.todos.flatMap((todo: unknown) => {
            const item = todo as Partial<TodoItem> | null;
            return typeof item?.content === "string"
              ? [{ content: item.content, status: String(item.status ?? "pending") }]
              : [];
          });
        }
        if (name === "update_plan" && args.plan !== undefined) {
          facts.plan = typeof args.plan === "string" ? args.plan : JSON.stringify(args.plan);
        }
      }
    } else if (message.role === "tool") {
      const call = calls.get(message.tool_call_id ?? "");
      if (/^\s*(error|\{"error")/i.test(text)) facts.toolErrors += 1;
      const recognized = call ? roles?.byName.get(call.name) : undefined;
      const command = call
        ? (shellCommand(call.name, call.args) ?? roleCommand(recognized, call.args))
        : undefined;
      const lists = command !== undefined && /^(find|ls|grep -r|rg)\b/.test(command.trim());
      const listingRole = recognized?.role === "list" || recognized?.role === "search";
      if (call && (LISTING_TOOLS.has(call.name) || listingRole || lists)) {
        const base = call.name === "list_dir" && typeof call.args.path === "string" ? call.args.path : ".";
        // grep lines are `path:line: text`; only the path part names a file.
        const greps =
          call.name.toLowerCase() === "grep" ||
          recognized?.role === "search" ||
          command?.trim().startsWith("grep") === true;
        // Output cut in the middle keeps a tail that starts mid-line (`…er.ts:75:` of `src/ledger.ts:75:`).
        const whole = text.replace(/\[output cut: [^\]\n]*\]\n+[^\n]*/g, "");
        const source = greps ? whole.replace(/^([^:\n]*):.*$/gm, "$1") : whole;
        for (const path of extractPaths(source, base)) facts.discovered.add(path);
      }
    }
  }
  return facts;
}
