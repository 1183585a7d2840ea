import type { PlannedCall, PlannedTurn, ScriptContext } from "./planned-call.ts";
import { fillArguments, type RoleTool, type ToolRoles } from "./tool-roles.ts";

/** Files the coder scripts are told to leave behind (the task names them too). */
export const CODER_NOTES = "NOTES.md";
export const CODER_REPORT = "REPORT.md";

/**
 * The shell command of a coder's step 9, 19, 29…: counting lines, or — when the task asks it to run
 * the project's tests — running them. A test run's output is not a read (the projection keeps it
 * verbatim, never collapsing it), so such a task fills the context the way real test runs do.
 */
export function coderCheckCommand(context: Pick<ScriptContext, "task">): { command: string; what: string } {
  return /\brun (its|the) tests\b/i.test(context.task)
    ? { command: "node --test 2>&1", what: "running the tests" }
    : { command: "wc -l $(find . -name '*.ts' -not -path '*/.*') | tail -1", what: "counting lines" };
}

/** A path as a tool wants it: absolute when its schema says so (and the folder is known), else relative. */
function pathFor(tool: RoleTool, context: ScriptContext, relative: string): string {
  if (!tool.absolutePaths || !context.cwd) return relative;
  if (relative === ".") return context.cwd;
  return `${context.cwd.replace(/\/$/, "")}/${relative.replace(/^\.\//, "")}`;
}

/** The notes file as the coder keeps it. */
export function coderNotes(step: number, context: ScriptContext, files: string[]): string {
  return [
    "# Notes",
    "",
    `progress: step ${step}`,
    `task: ${context.task.replace(/\s+/g, " ").slice(0, 160)}`,
    "",
    "## Files seen",
    ...files.slice(0, 25).map((file) => `- ${file}`),
    "",
  ].join("\n");
}

/** The report the coder writes at its last step. */
export function coderReport(step: number, context: ScriptContext, files: string[]): string {
  const read = files.filter((file) => context.readFiles.has(file));
  return [
    "# Report",
    "",
    `Finished after ${step} steps.`,
    `Files read (${read.length}): ${read.slice(0, 30).join(", ") || "none"}`,
    `Files seen (${files.length}).`,
    "",
  ].join("\n");
}

/**
 * The coder for any client: each step in the client's own tools as `recognizeToolRoles` read them off
 * the offered schemas — list and search the project, read its files one by one, keep NOTES.md (written
 * every 10 steps, edited 3 steps later), run a command now and then, and write REPORT.md at the last
 * step. What a client has no tool for is done through its shell tool; without one, the step reads.
 */
export function genericCoderTurn(context: ScriptContext, roles: ToolRoles, files: string[]): PlannedTurn {
  const { step, steps } = context;
  const { read, list, search, write, edit, shell } = roles.byRole;
  const call = (tool: RoleTool, values: Parameters<typeof fillArguments>[1]): PlannedCall => ({
    name: tool.name,
    args: fillArguments(tool, { description: "Run a shell command", ...values }),
  });
  const run = (command: string): PlannedCall | undefined => (shell ? call(shell, { command }) : undefined);
  const readCall = (path: string): PlannedCall | undefined =>
    read ? call(read, { path: pathFor(read, context, path) }) : run(`sed -n '1,60p' ${path}`);
  const writeCall = (path: string, content: string): PlannedCall | undefined =>
    write
      ? call(write, { path: pathFor(write, context, path), content })
      : run(`cat > ${path} <<'SIM_EOF'\n${content}\nSIM_EOF`);
  const say = (planned: PlannedCall | undefined, what: string): PlannedTurn | undefined =>
    planned ? { text: `Step ${step}: ${what}.`, calls: [planned] } : undefined;

  const unread = files.filter((file) => !context.readFiles.has(file));
  const pool = unread.length > 0 ? unread : files;
  const target = pool.length > 0 ? pool[step % pool.length]! : undefined;
  const reading = () =>
    (target ? say(readCall(target), `reading ${target}`) : undefined) ??
    say(
      list ? call(list, { path: pathFor(list, context, "."), pattern: "**/*" }) : run("ls -la"),
      "looking around",
    );

  let turn: PlannedTurn | undefined;
  if (step === steps) {
    turn = say(writeCall(CODER_REPORT, coderReport(step, context, files)), `writing ${CODER_REPORT}`);
  } else if (step === 1) {
    turn = say(
      list ? call(list, { path: pathFor(list, context, "."), pattern: "**/*" }) : run("ls -la"),
      "looking at the folder",
    );
  } else if (step === 2) {
    turn = say(run("find . -type f -not -path '*/.*' | sort"), "listing the files");
  } else if (step === 3) {
    turn = say(
      search
        ? call(search, { pattern: "export", path: pathFor(search, context, ".") })
        : run("grep -rn 'export' --include='*.ts' . | head -20"),
      "searching for exports",
    );
  } else if (step % 10 === 5) {
    turn = say(writeCall(CODER_NOTES, coderNotes(step, context, files)), `writing ${CODER_NOTES}`);
  } else if (step % 10 === 8 && step > 5) {
    const from = `progress: step ${step - 3}`;
    const to = `progress: step ${step}`;
    turn = say(
      edit
        ? call(edit, { path: pathFor(edit, context, CODER_NOTES), oldText: from, newText: to })
        : run(`sed -i 's/${from}/${to}/' ${CODER_NOTES}`),
      `updating ${CODER_NOTES}`,
    );
  } else if (step % 10 === 9) {
    const check = coderCheckCommand(context);
    turn = say(run(check.command), check.what);
  }
  return (
    turn ??
    reading() ?? { text: `Step ${step}: no file, list or shell tool among the offered ones.`, calls: [] }
  );
}
