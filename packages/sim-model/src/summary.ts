import { summaryMarker } from "./markers.ts";
import { isSummaryInstruction } from "./summary-request.ts";
import { countText } from "./tokens.ts";
import { readTranscript, type TodoItem } from "./transcript-facts.ts";
import { contentText, type WireMessage } from "./wire.ts";
import { workingFolderIn } from "./working-folder.ts";

/** Upper bound of a summary's size in o200k tokens, whatever the input. */
export const SUMMARY_MAX_TOKENS = 1500;

function clip(text: string, max: number): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length <= max ? flat : `${flat.slice(0, max - 1)}…`;
}

/** Text of one `## <title>` section of a previous sim summary. */
function section(summary: string, title: string): string {
  const match = summary.match(new RegExp(`## ${title}\\n([\\s\\S]*?)(?=\\n## |\\n</sim-summary>|$)`));
  return match?.[1]?.trim() ?? "";
}

function bulletLines(text: string): string[] {
  return text
    .split("\n")
    .map((line) => line.replace(/^- /, "").trim())
    .filter(Boolean);
}

function previousToolCounts(summary: string): Map<string, number> {
  const counts = new Map<string, number>();
  for (const match of section(summary, "Tools used").matchAll(/([\w-]+) x(\d+)/g)) {
    counts.set(match[1]!, Number(match[2]));
  }
  return counts;
}

function render(parts: {
  step: number;
  done: number;
  task: string;
  latest: string;
  decisions: string[];
  state: string[];
  tools: string;
  files: string[];
  open: string[];
  next: string;
}): string {
  const list = (items: string[], empty: string) =>
    items.length ? items.map((item) => `- ${item}`).join("\n") : `- ${empty}`;
  return [
    summaryMarker(parts.step, parts.done),
    `## Task\n${parts.task || "(unknown)"}`,
    `## Latest user message\n${parts.latest || "(same as task)"}`,
    `## Decisions\n${list(parts.decisions, "none recorded")}`,
    `## State of work\n${list(parts.state, "not started")}`,
    `## Tools used\n${parts.tools || "none"}`,
    `## Files touched\n${list(parts.files, "none")}`,
    `## Open items\n${list(parts.open, "none")}`,
    `## Next step\n${parts.next}`,
    "</sim-summary>",
  ].join("\n");
}

/**
 * Deterministic extractive summary of the transcript in a summarization request (instructions are
 * skipped). A previous sim summary found in the transcript is folded in. Always <= SUMMARY_MAX_TOKENS,
 * and <= `maxTokens` (the request's max_tokens).
 */
/** A summary lists files seen in listings (never opened) only up to this many files in all. */
const MAX_SEEN_FILES = 8;

export function buildSummary(messages: readonly WireMessage[], maxTokens = SUMMARY_MAX_TOKENS): string {
  // A floor keeps the shrinking loop finite (its closing tag alone is a few tokens).
  const budget = Math.max(32, Math.min(SUMMARY_MAX_TOKENS, maxTokens));
  const transcript = messages.filter((message) => !isSummaryInstruction(message));
  const facts = readTranscript(transcript);
  const previous = facts.previousSummaries.at(-1) ?? "";

  const previousTask = section(previous, "Task");
  const task = clip(
    previousTask && previousTask !== "(unknown)" ? previousTask : (facts.userTexts[0] ?? ""),
    600,
  );
  const latest = clip(facts.userTexts.at(-1) ?? section(previous, "Latest user message"), 400);

  const toolCounts = previousToolCounts(previous);
  for (const [name, count] of facts.toolCounts) toolCounts.set(name, (toolCounts.get(name) ?? 0) + count);
  const tools = [...toolCounts.entries()]
    .sort((a, b) => a[0].localeCompare(b[0]))
    .map(([name, count]) => `${name} x${count}`)
    .join(", ");

  const files = bulletLines(section(previous, "Files touched")).filter((line) => line !== "none");
  const known = new Set(files.map((line) => line.replace(/ \(.*\)$/, "")));
  for (const [path, actions] of facts.files) {
    const line = `${path} (${[...actions].join(", ")})`;
    if (known.has(path))
      files.splice(
        files.findIndex((entry) => entry.startsWith(`${path} (`)),
        1,
      );
    known.add(path);
    files.push(clip(line, 160));
  }

  // While the agent has touched few files, some it only saw in listings stay known so it can still
  // get to them; a listing of hundreds of files never becomes the summary.
  for (const path of facts.discovered) {
    if (files.length >= MAX_SEEN_FILES) break;
    if (known.has(path) || path.startsWith("/")) continue;
    known.add(path);
    files.push(clip(`${path} (seen)`, 160));
  }

  const decisions = [
    ...bulletLines(section(previous, "Decisions")).filter((line) => line !== "none recorded"),
    ...facts.assistantTexts.map((text) => clip(text, 200)),
  ];
  const todos: TodoItem[] | undefined = facts.todos;
  const open = todos
    ? todos
        .filter((todo) => todo.status !== "completed")
        .map((todo) => clip(`[${todo.status}] ${todo.content}`, 160))
    : bulletLines(section(previous, "Open items")).filter((line) => line !== "none");
  const plan = facts.plan ?? section(previous, "State of work").match(/plan: (.*)/)?.[1];
  // Where the work happens, as a model's summary keeps it: the folder a message named (often past
  // the part of a long first message the task keeps), or the one the previous summary carried.
  const folder =
    transcript.map((message) => workingFolderIn(contentText(message.content))).find(Boolean) ??
    section(previous, "State of work").match(/Working directory: (\S+)/)?.[1];
  const state = [
    `steps completed: ${facts.step}${facts.done ? ` (last finished task at step ${facts.done})` : ""}`,
    `tool errors seen: ${facts.toolErrors}`,
    ...(todos
      ? [`todos: ${todos.filter((todo) => todo.status === "completed").length}/${todos.length} done`]
      : []),
    ...(plan ? [`plan: ${clip(plan, 300)}`] : []),
    ...(folder ? [`Working directory: ${folder}`] : []),
  ];
  const lastAssistant = facts.assistantTexts.at(-1);
  const next = clip(
    open[0]
      ? `Continue with: ${open[0]}`
      : lastAssistant
        ? `Continue after: ${lastAssistant}`
        : "Answer the latest user message.",
    300,
  );

  const parts = {
    step: facts.step,
    done: facts.done,
    task,
    latest,
    decisions,
    state,
    tools,
    files,
    open,
    next,
  };
  // Shrink the longest lists (oldest entries first) until the summary fits its budget.
  let text = render(parts);
  while (countText(text) > budget) {
    const longest = [parts.files, parts.decisions, parts.open].sort((a, b) => b.length - a.length)[0]!;
    if (longest.length <= 3) {
      parts.task = clip(parts.task, 200);
      parts.latest = clip(parts.latest, 200);
      text = render(parts);
      while (countText(text) > budget)
        text = `${text.slice(0, Math.floor(text.length * 0.8))}\n</sim-summary>`;
      break;
    }
    longest.splice(0, Math.ceil(longest.length / 4));
    text = render(parts);
  }
  return text;
}
