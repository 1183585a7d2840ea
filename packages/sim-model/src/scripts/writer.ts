import { explorerTurn } from "./explorer.ts";
import type { PlannedTurn, ScriptContext } from "./planned-call.ts";

/** Folder the writer script writes its parts into. */
export const WRITER_DIR = "sim-writer";

function part(step: number, task: string): string {
  const lines = [`# Part ${step}`, "", `Task: ${task.slice(0, 200)}`, ""];
  // About 6 KB of deterministic prose so tool-call arguments are large.
  for (let line = 1; line <= 90; line += 1) {
    lines.push(
      `Line ${line} of part ${step}: the quick brown fox documents section ${(step * 31 + line) % 97}.`,
    );
  }
  return lines.join("\n");
}

/** Writer: writes large files (big tool arguments), reads them back and edits them. */
export function writerTurn(context: ScriptContext): PlannedTurn {
  const { step, tools } = context;
  const phase = step % 3;
  if (phase === 1 && tools.has("write_file")) {
    const path = `${WRITER_DIR}/part-${step}.md`;
    return {
      text: `Step ${step}: writing ${path}.`,
      calls: [{ name: "write_file", args: { path, content: part(step, context.task) } }],
    };
  }
  if (phase === 2 && step > 1 && tools.has("read_file")) {
    const path = `${WRITER_DIR}/part-${step - 1}.md`;
    return { text: `Step ${step}: checking ${path}.`, calls: [{ name: "read_file", args: { path } }] };
  }
  if (phase === 0 && step > 2 && tools.has("edit_file")) {
    const path = `${WRITER_DIR}/part-${step - 2}.md`;
    const args = { path, oldText: `# Part ${step - 2}`, newText: `# Part ${step - 2} (reviewed)` };
    return { text: `Step ${step}: marking ${path} reviewed.`, calls: [{ name: "edit_file", args }] };
  }
  return explorerTurn(context);
}
