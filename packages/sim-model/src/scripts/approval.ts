import { explorerTurn } from "./explorer.ts";
import type { PlannedTurn, ScriptContext } from "./planned-call.ts";

/** Approval: runs a shell command at step 1 (the runtime should ask for approval) and every 10th step. */
export function approvalTurn(context: ScriptContext): PlannedTurn {
  if (context.tools.has("run_command") && context.step % 10 === 1) {
    const command = context.step === 1 ? "ls -la" : "git status --short";
    return {
      text: `Step ${context.step}: running \`${command}\`.`,
      calls: [{ name: "run_command", args: { command, timeoutMs: 10_000 } }],
    };
  }
  return explorerTurn(context);
}
