import type { ChatMessage } from "@longrun/protocol";

/**
 * Cline's exported task (`cline_task_*.md`): `**User:**` and `**Assistant:**` turns split by `---`;
 * the assistant asks for one tool as XML (`<execute_command><command>…</command></execute_command>`),
 * and the next user turn starts with `[execute_command for '…'] Result:` and the tool's words, then
 * the editor's `<environment_details>`. Results carry no exit code and no status: only their text.
 */
const TURN = /^\*\*(User|Assistant):\*\*\s*$/m;
const RESULT_HEAD = /^\[([a-z_]+)(?: for '([\s\S]*?)')?\] Result:[ \t]*\n?/;
const ENVIRONMENT = /<environment_details>[\s\S]*?(?:<\/environment_details>|$)/g;
/** Tools Cline gives the model; an XML element of another name is text, not a call. */
const TOOLS = [
  "execute_command",
  "read_file",
  "write_to_file",
  "replace_in_file",
  "search_files",
  "list_files",
  "list_code_definition_names",
  "browser_action",
  "use_mcp_tool",
  "access_mcp_resource",
  "ask_followup_question",
  "attempt_completion",
  "new_task",
  "plan_mode_respond",
];

function turns(text: string): { role: "user" | "assistant"; body: string }[] {
  const parts = text.split(TURN);
  const out: { role: "user" | "assistant"; body: string }[] = [];
  for (let index = 1; index + 1 < parts.length; index += 2) {
    const body = (parts[index + 1] as string).replace(/\n---\s*$/, "").trim();
    out.push({ role: parts[index] === "User" ? "user" : "assistant", body });
  }
  return out;
}

/** The first tool element in an assistant turn: its name, its child elements as arguments, the text before it. */
function toolUse(body: string): { name: string; args: Record<string, string>; before: string } | null {
  const open = new RegExp(`<(${TOOLS.join("|")})>`).exec(body);
  if (!open) return null;
  const name = open[1] as string;
  const close = body.indexOf(`</${name}>`, open.index);
  const inner = body.slice(open.index + open[0].length, close < 0 ? undefined : close);
  const args: Record<string, string> = {};
  for (const child of inner.matchAll(/<([a-z_]+)>([\s\S]*?)<\/\1>/g)) {
    if (child[1] !== "task_progress") args[child[1] as string] = (child[2] as string).replace(/^\n|\n$/g, "");
  }
  const before = body
    .slice(0, open.index)
    .replace(/```tool_use\s*$/, "")
    .trim();
  return { name, args, before };
}

/** Converts one exported Cline task to Chat Completions messages (one call per assistant turn, as Cline runs them). */
export function fromCline(text: string): ChatMessage[] {
  const messages: ChatMessage[] = [];
  let pending: { id: string; name: string } | null = null;
  let count = 0;
  for (const turn of turns(text)) {
    if (turn.role === "assistant") {
      const use = toolUse(turn.body);
      if (use === null) {
        messages.push({ role: "assistant", content: turn.body });
        pending = null;
        continue;
      }
      const id = `cline_${++count}`;
      messages.push({
        role: "assistant",
        content: use.before,
        tool_calls: [
          { id, type: "function", function: { name: use.name, arguments: JSON.stringify(use.args) } },
        ],
      });
      pending = { id, name: use.name };
      continue;
    }
    const body = turn.body.replace(ENVIRONMENT, "").trim();
    const head = RESULT_HEAD.exec(body);
    if (pending !== null && head !== null && head[1] === pending.name) {
      messages.push({ role: "tool", tool_call_id: pending.id, content: body.slice(head[0].length).trim() });
    } else {
      // A call the export shows no result for gets none: the transcript never claims one.
      if (pending !== null) dropCall(messages, pending.id);
      messages.push({ role: "user", content: body });
    }
    pending = null;
  }
  if (pending !== null) dropCall(messages, pending.id);
  return messages;
}

function dropCall(messages: ChatMessage[], id: string): void {
  const at = messages.findLastIndex((message) => message.tool_calls?.some((call) => call.id === id));
  const message = messages[at];
  if (message === undefined) return;
  const { tool_calls: _calls, ...rest } = message;
  messages[at] = rest;
}
