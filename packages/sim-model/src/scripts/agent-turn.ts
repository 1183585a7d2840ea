import { callId, doneMarker } from "../markers.ts";
import type { SimScript } from "../model-options.ts";
import { readTranscript } from "../transcript-facts.ts";
import { contentText, type WireRequest, type WireToolCall } from "../wire.ts";
import { workingFolderIn } from "../working-folder.ts";
import { approvalTurn } from "./approval.ts";
import { coderTurn } from "./coder.ts";
import { explorerTurn } from "./explorer.ts";
import type { PlannedTurn, ScriptContext } from "./planned-call.ts";
import { teamTurn } from "./team.ts";
import { recognizeToolRoles } from "./tool-roles.ts";
import { writerTurn } from "./writer.ts";

/** The scripted agent's answer to one request. */
export interface AgentTurn {
  content: string | null;
  toolCalls: WireToolCall[];
  /** Global step number of this turn (the final answer carries the last finished step). */
  step: number;
  final: boolean;
}

const SCRIPTS: Record<SimScript, (context: ScriptContext) => PlannedTurn> = {
  explorer: explorerTurn,
  team: teamTurn,
  approval: approvalTurn,
  writer: writerTurn,
  coder: coderTurn,
};

/** The client's working folder as its prompt (or a summary of it) states it. */
function workingFolder(request: WireRequest): string | undefined {
  for (const message of request.messages) {
    const found = workingFolderIn(contentText(message.content));
    if (found) return found;
  }
  return undefined;
}

function finalReport(
  context: ScriptContext,
  files: readonly string[],
  completed: number,
  step: number,
): string {
  const shown = files.slice(0, 20);
  return [
    "## Report",
    `Task: ${context.task.slice(0, 300) || "(none given)"}`,
    `Completed ${completed} steps with the ${context.script} script.`,
    `Files examined (${files.length}): ${shown.join(", ") || "none"}${files.length > shown.length ? ", …" : ""}`,
    "Findings: the workspace was surveyed, key files were read and notes were kept.",
    doneMarker(step),
  ].join("\n");
}

/**
 * Decide the scripted agent's next turn from the request alone. Steps done in the current task =
 * highest step marker seen (tool call ids, summary marker) minus the highest finished step (done
 * markers); without any marker, the assistant tool-call turns since the last user message.
 */
export function agentTurn(request: WireRequest, script: SimScript, steps: number, tag: string): AgentTurn {
  // tool_choice "none" forbids tool calls, so the agent can only answer in text.
  const offered = request.tool_choice === "none" ? [] : (request.tools ?? []);
  const toolRoles = recognizeToolRoles(offered);
  const facts = readTranscript(request.messages, toolRoles);
  const completed = facts.step > 0 ? facts.step - facts.done : facts.toolTurnsSinceUser;
  const base = Math.max(facts.step, completed);
  const readFiles = new Set(
    [...facts.files].filter(([, actions]) => actions.has("read")).map(([path]) => path),
  );
  // A folder the agent listed or searched (`list_dir .`, `grep … src`) is no file to read.
  const folders = new Set(
    [...facts.files]
      .filter(([, actions]) => [...actions].every((action) => action === "listed" || action === "searched"))
      .map(([path]) => path),
  );
  const files = [...new Set([...facts.discovered, ...facts.files.keys()])].filter(
    (path) => !path.endsWith("/") && !(folders.has(path) && !facts.discovered.has(path)),
  );
  const cwd = workingFolder(request);
  const context: ScriptContext = {
    script,
    step: completed + 1,
    steps,
    tools: new Set(offered.map((tool) => tool.function.name)),
    toolRoles,
    task: facts.userTexts.at(-1) ?? facts.previousSummaries.at(-1)?.match(/## Task\n(.*)/)?.[1] ?? "",
    files,
    readFiles,
    ...(cwd ? { cwd } : {}),
  };
  const planned = completed >= steps ? undefined : SCRIPTS[script](context);
  if (!planned || planned.calls.length === 0) {
    return { content: finalReport(context, files, completed, base), toolCalls: [], step: base, final: true };
  }
  const step = base + 1;
  const toolCalls = planned.calls.map((call, index) => ({
    id: callId(step, index, tag),
    type: "function" as const,
    function: { name: call.name, arguments: JSON.stringify(call.args) },
  }));
  return { content: planned.text, toolCalls, step, final: false };
}
