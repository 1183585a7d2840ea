import { firstOffered, type PlannedCall, type PlannedTurn, type ScriptContext } from "./planned-call.ts";

/** The notes file explorer keeps (written every 10 steps, edited 3 steps after each write). */
export const NOTES_PATH = "SIM_NOTES.md";

function notes(step: number, context: ScriptContext): string {
  const known = context.files.slice(0, 30).map((file) => `- ${file}`);
  return [
    "# Sim notes",
    "",
    `progress: step ${step}`,
    `task: ${context.task.slice(0, 200)}`,
    "",
    "## Files seen",
    ...known,
    "",
  ].join("\n");
}

function todos(step: number, steps: number): PlannedCall {
  const phases = [
    "Survey the workspace layout",
    "Read the key source files",
    "Record findings in notes",
    "Report",
  ];
  const current = Math.min(phases.length - 1, Math.floor(((step - 1) / Math.max(1, steps)) * phases.length));
  return {
    name: "todo_write",
    args: {
      todos: phases.map((content, index) => ({
        content,
        status: index < current ? "completed" : index === current ? "in_progress" : "pending",
      })),
    },
  };
}

function readTargets(context: ScriptContext, count: number): string[] {
  const unread = context.files.filter((file) => !context.readFiles.has(file));
  const pool = unread.length > 0 ? unread : [...context.files];
  const picks: string[] = [];
  for (let index = 0; index < pool.length && picks.length < count; index += 1) {
    // Rotate through the pool by step so repeated runs spread reads over the workspace.
    const file = pool[(context.step + index) % pool.length]!;
    if (!picks.includes(file)) picks.push(file);
  }
  return picks;
}

function discover(context: ScriptContext): PlannedCall | undefined {
  return firstOffered(context, [
    { name: "glob", args: { pattern: "**/*" } },
    { name: "list_dir", args: { path: "." } },
    { name: "grep", args: { pattern: "TODO", path: "." } },
  ]);
}

/** Explorer: survey, search, read many files (contexts grow), keep notes, todos and a plan. */
export function explorerTurn(context: ScriptContext): PlannedTurn {
  const { step, steps } = context;
  const scheduled: PlannedCall[] = [];
  if (step === 1) scheduled.push(todos(step, steps));
  if (step === 2) scheduled.push({ name: "list_dir", args: { path: "." } });
  if (step === 3) scheduled.push({ name: "glob", args: { pattern: "**/*" } });
  if (step % 10 === 4) scheduled.push({ name: "grep", args: { pattern: "TODO|FIXME|export ", path: "." } });
  if (step % 10 === 5)
    scheduled.push({ name: "write_file", args: { path: NOTES_PATH, content: notes(step, context) } });
  if (step % 10 === 8 && step > 5) {
    const from = `progress: step ${step - 3}`;
    scheduled.push({
      name: "edit_file",
      args: { path: NOTES_PATH, oldText: from, newText: `progress: step ${step}` },
    });
  }
  if (step % 10 === 9) {
    const plan = `1. survey (done) 2. read sources (step ${step}/${steps}) 3. notes 4. report`;
    scheduled.push({ name: "update_plan", args: { plan } });
  }
  if (step % 10 === 0) scheduled.push(todos(step, steps));
  if (step % 20 === 13)
    scheduled.push({ name: "web_search", args: { query: context.task.slice(0, 80) || "docs" } });
  const chosen = firstOffered(context, scheduled);
  if (chosen) return { text: `Step ${step}: ${chosen.name}.`, calls: [chosen] };

  // Reading: three files at once every 7th step (parallel tool calls), otherwise one.
  if (context.tools.has("read_file")) {
    const targets = readTargets(context, step % 7 === 6 ? 3 : 1);
    if (targets.length > 0) {
      return {
        text: `Step ${step}: reading ${targets.join(", ")}.`,
        calls: targets.map((path) => ({ name: "read_file", args: { path } })),
      };
    }
  }
  const fallback =
    discover(context) ?? firstOffered(context, scheduled.length ? scheduled : [todos(step, steps)]);
  return { text: `Step ${step}: looking around.`, calls: fallback ? [fallback] : [] };
}
