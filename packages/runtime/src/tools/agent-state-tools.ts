import { SpawnBody, TodoItem } from "@longrun/protocol";
import { z } from "zod";
import { defineTool, ok } from "./types.ts";

const MARKS = { pending: "[ ]", in_progress: "[~]", completed: "[x]" } as const;

/** todo_write: replace the agent's TODO list (kept across compactions). */
export const todoWriteTool = defineTool({
  name: "todo_write",
  description:
    "Replace your TODO list with the given items (status: pending, in_progress or completed). " +
    "Send the whole list each time; it is kept across context compactions.",
  schema: z.object({ todos: z.array(TodoItem).max(200) }),
  async run(args, { context }) {
    await context.setTodos(args.todos);
    if (args.todos.length === 0) return ok("TODO list cleared.");
    const done = args.todos.filter((todo) => todo.status === "completed").length;
    const lines = args.todos.map((todo) => `${MARKS[todo.status]} ${todo.content}`);
    return ok(`TODO list updated (${done}/${args.todos.length} completed):\n${lines.join("\n")}`);
  },
});

/** update_plan: replace the agent's plan (kept across compactions). */
export const updatePlanTool = defineTool({
  name: "update_plan",
  description: "Replace your current plan with the given text; it is kept across context compactions.",
  schema: z.object({ plan: z.string().min(1).max(50_000).describe("The whole plan, as text.") }),
  async run(args, { context }) {
    await context.setPlan(args.plan);
    return ok(`Plan updated (${args.plan.split("\n").length} lines).`);
  },
});

/** spawn_agents: start sub-agents; the result is their final reports, possibly delivered later. */
export const spawnAgentsTool = defineTool({
  name: "spawn_agents",
  description:
    "Start sub-agents that work in parallel in the same workspace. Each gets a name and a brief; " +
    'inherit "fresh" (default) starts from the brief alone, "fork" starts from your current context. ' +
    "The result is each sub-agent's final report.",
  schema: SpawnBody,
  async run(args, { context, callId }) {
    const outcome = await context.spawnAgents(args.agents, callId);
    if ("parked" in outcome) {
      const names = args.agents.map((agent) => agent.name).join(", ");
      return { status: "ok", output: `Waiting for ${args.agents.length} sub-agents: ${names}`, parked: true };
    }
    return ok(outcome.reports);
  },
});
