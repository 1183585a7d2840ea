import type { SimScript } from "../model-options.ts";
import type { ToolRoles } from "./tool-roles.ts";

/** A tool call a script wants to make (arguments are serialized by the caller). */
export interface PlannedCall {
  name: string;
  args: Record<string, unknown>;
}

/** One scripted turn: a short text and zero or more tool calls. */
export interface PlannedTurn {
  text: string;
  calls: PlannedCall[];
}

/** What a script knows when it picks its next turn (all derived from the request). */
export interface ScriptContext {
  script: SimScript;
  /** 1-based step within the current task. */
  step: number;
  /** Step budget of the task. */
  steps: number;
  tools: ReadonlySet<string>;
  /** The offered tools' roles, read off their names, descriptions and schemas. */
  toolRoles: ToolRoles;
  task: string;
  /** Candidate files to read (discovered in listings, searches and summaries), in discovery order. */
  files: readonly string[];
  /** Files already read in the visible history. */
  readFiles: ReadonlySet<string>;
  /** The client's working folder when its prompt names one (Codex `<cwd>`, opencode `Working directory:`). */
  cwd?: string;
}

/** Pick the first planned call whose tool is offered. */
export function firstOffered(context: ScriptContext, options: PlannedCall[]): PlannedCall | undefined {
  return options.find((option) => context.tools.has(option.name));
}
