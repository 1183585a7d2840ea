import {
  CODER_NOTES,
  CODER_REPORT,
  coderCheckCommand,
  coderNotes,
  coderReport,
  genericCoderTurn,
} from "./generic-coder.ts";
import type { PlannedCall, PlannedTurn, ScriptContext } from "./planned-call.ts";

export { CODER_NOTES, CODER_REPORT } from "./generic-coder.ts";

/**
 * Which client's tools are on offer: Codex CLI (exec_command / shell, apply_patch), opencode (bash,
 * read, write, edit with `filePath`) or Claude Code (Bash, Read, Write, Edit with `file_path`); null
 * for any other client, which the generic coder serves from the tools' schemas. A schema that names
 * other arguments is another client's (pi's read, bash, edit, write take `path`).
 */
type Vocabulary = "codex" | "opencode" | "claude";

function vocabularyOf(context: ScriptContext): Vocabulary | null {
  const { tools, toolRoles } = context;
  const takes = (name: string, property: string) => {
    const schema = toolRoles.byName.get(name)?.schema;
    const properties = Object.keys(schema?.properties ?? {});
    return properties.length === 0 || properties.includes(property);
  };
  if (tools.has("exec_command") || tools.has("shell")) return "codex";
  if (tools.has("bash") && tools.has("read") && tools.has("write") && takes("read", "filePath"))
    return "opencode";
  if (tools.has("Bash") && tools.has("Read") && tools.has("Write") && takes("Read", "file_path"))
    return "claude";
  return null;
}

/** A path relative to the working folder (clients and tool outputs mix absolute and relative ones). */
export function relativePath(path: string, cwd: string | undefined): string {
  let relative = path.replace(/^\.\//, "");
  if (cwd && relative.startsWith(`${cwd.replace(/\/$/, "")}/`))
    relative = relative.slice(cwd.replace(/\/$/, "").length + 1);
  return relative;
}

function absolutePath(path: string, cwd: string | undefined): string {
  if (path.startsWith("/") || !cwd) return path;
  return `${cwd.replace(/\/$/, "")}/${path}`;
}

/** A shell command as the client's tool call. */
function shell(vocabulary: Vocabulary, tools: ReadonlySet<string>, command: string): PlannedCall {
  if (vocabulary === "opencode")
    return { name: "bash", args: { command, description: "Run a shell command" } };
  if (vocabulary === "claude") return { name: "Bash", args: { command, description: "Run a shell command" } };
  if (tools.has("exec_command")) return { name: "exec_command", args: { cmd: command } };
  return { name: "shell", args: { command: ["bash", "-lc", command] } };
}

/** Writing a whole file in the client's vocabulary (Codex has no write tool: a heredoc, or apply_patch). */
function writeFile(
  vocabulary: Vocabulary,
  context: ScriptContext,
  path: string,
  content: string,
): PlannedCall {
  if (vocabulary === "opencode")
    return { name: "write", args: { filePath: absolutePath(path, context.cwd), content } };
  if (vocabulary === "claude")
    return { name: "Write", args: { file_path: absolutePath(path, context.cwd), content } };
  if (context.tools.has("apply_patch")) {
    const body = content
      .split("\n")
      .map((line) => `+${line}`)
      .join("\n");
    return {
      name: "apply_patch",
      args: { input: `*** Begin Patch\n*** Add File: ${path}\n${body}\n*** End Patch` },
    };
  }
  return shell(vocabulary, context.tools, `cat > ${path} <<'SIM_EOF'\n${content}\nSIM_EOF`);
}

function editFile(
  vocabulary: Vocabulary,
  context: ScriptContext,
  path: string,
  from: string,
  to: string,
): PlannedCall {
  if (vocabulary === "opencode") {
    return {
      name: "edit",
      args: { filePath: absolutePath(path, context.cwd), oldString: from, newString: to },
    };
  }
  if (vocabulary === "claude") {
    return {
      name: "Edit",
      args: { file_path: absolutePath(path, context.cwd), old_string: from, new_string: to },
    };
  }
  return shell(vocabulary, context.tools, `sed -i 's/${from}/${to}/' ${path}`);
}

function readFile(vocabulary: Vocabulary, context: ScriptContext, path: string): PlannedCall {
  if (vocabulary === "opencode") return { name: "read", args: { filePath: absolutePath(path, context.cwd) } };
  if (vocabulary === "claude") return { name: "Read", args: { file_path: absolutePath(path, context.cwd) } };
  return shell(vocabulary, context.tools, `sed -n '1,60p' ${path}`);
}

/** The todo tool of the client (opencode's todowrite, Claude Code's TodoWrite), if it offers one. */
function todoTool(vocabulary: Vocabulary, tools: ReadonlySet<string>): string | undefined {
  if (vocabulary === "opencode" && tools.has("todowrite")) return "todowrite";
  if (vocabulary === "claude" && tools.has("TodoWrite")) return "TodoWrite";
  return undefined;
}

function todos(name: string, step: number, steps: number): PlannedCall {
  const phases = ["Survey the project", "Read the source files", "Keep notes in NOTES.md", "Write REPORT.md"];
  const current = Math.min(phases.length - 1, Math.floor(((step - 1) / Math.max(1, steps)) * phases.length));
  return {
    name,
    args: {
      todos: phases.map((content, index) => ({
        content,
        status: index < current ? "completed" : index === current ? "in_progress" : "pending",
        // opencode wants a priority, Claude Code an activeForm; each ignores the other's.
        ...(name === "todowrite" ? { priority: "medium" } : { activeForm: content }),
      })),
    },
  };
}

/**
 * Coder: what a coding agent does in Codex CLI, opencode or Claude Code, in that client's own tools — list and
 * search the project, read its files one by one, keep NOTES.md (written every 10 steps, edited 3 steps
 * later), run a command now and then (the tests, when the task asks for them), keep a todo list (opencode),
 * and write REPORT.md at the last step.
 * Paths are relative for Codex (its commands run in the working folder) and absolute for opencode and
 * Claude Code (their file tools demand it; the folder is read off the system prompt). Any other client
 * (pi, qwen-code, cline…) gets the same task in its own tools, read off their schemas (genericCoderTurn).
 */
export function coderTurn(context: ScriptContext): PlannedTurn {
  const vocabulary = vocabularyOf(context);
  const { step, steps } = context;
  const files = [...new Set(context.files.map((file) => relativePath(file, context.cwd)))].filter(
    (file) => !file.startsWith("/") && file !== CODER_NOTES && file !== CODER_REPORT,
  );
  const read = new Set([...context.readFiles].map((file) => relativePath(file, context.cwd)));
  const seen = { ...context, readFiles: read };
  if (!vocabulary) return genericCoderTurn(seen, context.toolRoles, files);
  const say = (call: PlannedCall, what: string): PlannedTurn => ({
    text: `Step ${step}: ${what}.`,
    calls: [call],
  });

  if (step === steps) {
    return say(
      writeFile(vocabulary, context, CODER_REPORT, coderReport(step, seen, files)),
      `writing ${CODER_REPORT}`,
    );
  }
  const todo = todoTool(vocabulary, context.tools);
  if (step === 1) {
    return todo
      ? say(todos(todo, step, steps), "planning")
      : say(shell(vocabulary, context.tools, "ls -la"), "looking at the folder");
  }
  if (step === 2) {
    return vocabulary === "opencode"
      ? say({ name: "glob", args: { pattern: "**/*" } }, "listing the files")
      : say(shell(vocabulary, context.tools, "find . -type f -not -path '*/.*' | sort"), "listing the files");
  }
  if (step === 3) {
    return vocabulary === "opencode" && context.tools.has("grep")
      ? say({ name: "grep", args: { pattern: "export", include: "*.ts" } }, "searching for exports")
      : vocabulary === "claude" && context.tools.has("Grep")
        ? say(
            { name: "Grep", args: { pattern: "export", glob: "*.ts", output_mode: "content" } },
            "searching for exports",
          )
        : say(
            shell(vocabulary, context.tools, "grep -rn 'export' --include='*.ts' . | head -20"),
            "searching for exports",
          );
  }
  if (step === 4 && vocabulary === "opencode") {
    // opencode's glob and grep need ripgrep, which it cannot download offline: list with bash too.
    return say(
      shell(vocabulary, context.tools, "find . -type f -not -path '*/.*' | sort"),
      "listing the files with find",
    );
  }
  if (step % 10 === 5)
    return say(
      writeFile(vocabulary, context, CODER_NOTES, coderNotes(step, context, files)),
      `writing ${CODER_NOTES}`,
    );
  if (step % 10 === 8 && step > 5) {
    return say(
      editFile(vocabulary, context, CODER_NOTES, `progress: step ${step - 3}`, `progress: step ${step}`),
      `updating ${CODER_NOTES}`,
    );
  }
  if (step % 10 === 9) {
    const check = coderCheckCommand(context);
    return say(shell(vocabulary, context.tools, check.command), check.what);
  }
  if (step % 10 === 0 && todo) return say(todos(todo, step, steps), "updating the plan");
  const unread = files.filter((file) => !read.has(file));
  const pool = unread.length > 0 ? unread : files;
  if (pool.length === 0) return say(shell(vocabulary, context.tools, "ls -la"), "looking around");
  const target = pool[step % pool.length]!;
  return say(readFile(vocabulary, context, target), `reading ${target}`);
}
