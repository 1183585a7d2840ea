import type { WireTool } from "./wire.ts";

type Property = { type: string | string[]; description?: string; items?: unknown };

/** A function tool as a client offers it (after the gateway's translation to Chat Completions form). */
function tool(
  name: string,
  description: string,
  properties: Record<string, Property>,
  required: string[] = [],
): WireTool {
  return {
    type: "function",
    function: { name, description, parameters: { type: "object", properties, required } },
  };
}

const text = (description?: string): Property => ({
  type: "string",
  ...(description ? { description } : {}),
});
const number = (description?: string): Property => ({
  type: "number",
  ...(description ? { description } : {}),
});
const flag = (description?: string): Property => ({
  type: "boolean",
  ...(description ? { description } : {}),
});
const list = (description?: string): Property => ({ type: "array", ...(description ? { description } : {}) });

/**
 * The tool lists of the clients people run, as they reach the upstream: names, argument names, what is
 * required, and the opening of their descriptions (shortened). Claude Code's are the recorded
 * 2.1.197 request's (24 tools; the argument names as recorded); Codex's are what 0.171 sends (its
 * freeform apply_patch as the gateway translates it); opencode 1.18's, pi 0.73's and qwen-code's as
 * those clients define them.
 */
export const CLIENT_TOOL_LISTS: Record<"codex" | "opencode" | "pi" | "qwen" | "claude-code", WireTool[]> = {
  codex: [
    tool(
      "exec_command",
      "Runs a command in a PTY, returning output or a session ID for ongoing interaction.",
      {
        cmd: text("Shell command to execute."),
        workdir: text("Optional working directory to run the command in; defaults to the turn cwd."),
        shell: text("Shell binary to launch. Defaults to the user's default shell."),
        login: flag("Whether to run the shell with -l/-i semantics. Defaults to true."),
        yield_time_ms: number("How long to wait (in milliseconds) for output before yielding."),
        max_output_tokens: number("Maximum number of tokens to return. Excess output will be truncated."),
        justification: text('Only set if sandbox_permissions is "require_escalated".'),
      },
      ["cmd"],
    ),
    tool(
      "write_stdin",
      "Writes characters to an existing unified exec session and returns recent output.",
      {
        session_id: number("Identifier of the running unified exec session."),
        chars: text("Bytes to write to stdin (may be empty to poll)."),
        yield_time_ms: number(),
        max_output_tokens: number(),
      },
      ["session_id"],
    ),
    tool(
      "apply_patch",
      "Use the `apply_patch` tool to edit files. This is a FREEFORM tool, so do not wrap the patch in JSON.",
      { input: text("The raw input of the tool.") },
      ["input"],
    ),
    tool(
      "update_plan",
      "Updates the task plan. Provide an optional explanation and a list of plan items, each with a step and status.",
      { explanation: text(), plan: list("The list of steps") },
      ["plan"],
    ),
    tool(
      "view_image",
      "Attach a local image (by filesystem path) to the thread context for this turn.",
      { path: text("Local filesystem path to an image file") },
      ["path"],
    ),
  ],
  opencode: [
    tool(
      "bash",
      "Executes a given bash command in a persistent shell session with optional timeout.",
      {
        command: text("The command to execute"),
        timeout: number("Optional timeout in milliseconds"),
        workdir: text("The working directory to run the command in. Defaults to the current directory."),
        description: text("Clear, concise description of what this command does in 5-10 words."),
      },
      ["command", "description"],
    ),
    tool(
      "edit",
      "Performs exact string replacements in files.",
      {
        filePath: text("The absolute path to the file to modify"),
        oldString: text("The text to replace"),
        newString: text("The text to replace it with (must be different from oldString)"),
        replaceAll: flag("Replace all occurrences of oldString (default false)"),
      },
      ["filePath", "oldString", "newString"],
    ),
    tool(
      "glob",
      "Fast file pattern matching tool that works with any codebase size.",
      {
        pattern: text("The glob pattern to match files against"),
        path: text(
          "The directory to search in. If not specified, the current working directory will be used.",
        ),
      },
      ["pattern"],
    ),
    tool(
      "grep",
      "Fast content search tool that works with any codebase size. Searches file contents using regular expressions.",
      {
        pattern: text("The regex pattern to search for in file contents"),
        path: text("The directory to search in. Defaults to the current working directory."),
        include: text('File pattern to include in the search (e.g. "*.js", "*.{ts,tsx}")'),
      },
      ["pattern"],
    ),
    tool(
      "read",
      "Reads a file from the local filesystem. You can access any file directly by using this tool.",
      {
        filePath: text("The absolute path to the file to read"),
        offset: number("The line number to start reading from (0-based)"),
        limit: number("The number of lines to read (defaults to 2000)"),
      },
      ["filePath"],
    ),
    tool("skill", "Load a skill to get detailed instructions for a specific task.", { name: text() }, [
      "name",
    ]),
    tool(
      "task",
      "Launch a new agent to handle complex, multistep tasks autonomously.",
      { description: text(), prompt: text(), subagent_type: text() },
      ["description", "prompt", "subagent_type"],
    ),
    tool("todowrite", "Use this tool to create and manage a structured task list.", { todos: list() }, [
      "todos",
    ]),
    tool(
      "webfetch",
      "Fetches content from a specified URL.",
      { url: text(), format: text(), timeout: number() },
      ["url", "format"],
    ),
    tool(
      "write",
      "Writes a file to the local filesystem. This tool will overwrite the existing file if there is one.",
      {
        content: text("The content to write to the file"),
        filePath: text("The absolute path to the file to write (must be absolute, not relative)"),
      },
      ["content", "filePath"],
    ),
  ],
  pi: [
    tool(
      "read",
      "Read the contents of a file. Supports text files and images. Output is truncated to 2000 lines.",
      {
        path: text("Path to the file to read (relative or absolute)"),
        offset: number("Line number to start reading from (1-indexed)"),
        limit: number("Maximum number of lines to read"),
      },
      ["path"],
    ),
    tool(
      "bash",
      "Execute a bash command in the current working directory. Returns stdout and stderr.",
      { command: text("Bash command to execute"), timeout: number("Timeout in seconds (optional)") },
      ["command"],
    ),
    tool(
      "edit",
      "Edit a file by replacing exact text. The oldText must match exactly (including whitespace).",
      {
        path: text("Path to the file to edit (relative or absolute)"),
        oldText: text("Exact text to find and replace (must match exactly)"),
        newText: text("New text to replace the old text with"),
      },
      ["path", "oldText", "newText"],
    ),
    tool(
      "write",
      "Write content to a file. Creates the file if it doesn't exist, overwrites if it does.",
      {
        path: text("Path to the file to write (relative or absolute)"),
        content: text("Content to write to the file"),
      },
      ["path", "content"],
    ),
  ],
  qwen: [
    tool(
      "read_file",
      "Reads and returns the content of a specified file. If the file is large, the content will be truncated.",
      {
        file_path: text("The absolute path to the file to read (e.g., '/home/user/project/file.txt')."),
        offset: number(),
        limit: number(),
      },
      ["file_path"],
    ),
    tool(
      "list_directory",
      "Lists the names of files and subdirectories directly within a specified directory path.",
      {
        path: text("The absolute path to the directory to list (must be absolute, not relative)"),
        ignore: list(),
      },
      ["path"],
    ),
    tool(
      "search_file_content",
      "Searches for a regular expression pattern within the content of files in a specified directory.",
      {
        pattern: text("The regular expression (regex) pattern to search for within file contents."),
        path: text("Optional: The absolute path to the directory to search within."),
        include: text("Optional: A glob pattern to filter which files are searched."),
      },
      ["pattern"],
    ),
    tool(
      "glob",
      "Fast file pattern matching tool that works with any codebase size.",
      { pattern: text("The glob pattern to match files against"), path: text("The directory to search in.") },
      ["pattern"],
    ),
    tool(
      "edit",
      "Replaces text within a file. By default, replaces a single occurrence.",
      {
        file_path: text("The absolute path to the file to modify. Must start with '/'."),
        old_string: text("The exact literal text to replace."),
        new_string: text("The exact literal text to replace `old_string` with."),
        replace_all: flag(),
      },
      ["file_path", "old_string", "new_string"],
    ),
    tool(
      "write_file",
      "Writes content to a specified file in the local filesystem.",
      {
        file_path: text("The absolute path to the file to write to."),
        content: text("The content to write."),
      },
      ["file_path", "content"],
    ),
    tool(
      "read_many_files",
      "Reads content from multiple files specified by paths or glob patterns within a configured target directory.",
      { paths: list("An array of glob patterns or paths relative to the tool's target directory.") },
      ["paths"],
    ),
    tool(
      "run_shell_command",
      "This tool executes a given shell command as `bash -c <command>`.",
      {
        command: text("Exact bash command to execute as `bash -c <command>`"),
        is_background: flag("Whether to run the command in background."),
        description: text("Brief description of the command for the user."),
        directory: text("(OPTIONAL) The path of the directory to run the command in."),
      },
      ["command", "is_background"],
    ),
    tool("save_memory", "Saves a specific piece of information to your long-term memory.", { fact: text() }, [
      "fact",
    ]),
    tool("todo_write", "Creates and manages a structured task list.", { todos: list() }, ["todos"]),
    tool(
      "web_fetch",
      "Fetches content from a specified URL and processes it.",
      { url: text(), prompt: text() },
      ["url", "prompt"],
    ),
  ],
  "claude-code": [
    tool(
      "Agent",
      "Launch a new agent to handle complex, multi-step tasks autonomously.",
      {
        description: text(),
        prompt: text(),
        subagent_type: text(),
        model: text(),
        run_in_background: flag(),
        isolation: text(),
      },
      ["description", "prompt"],
    ),
    tool(
      "Bash",
      "Executes a given bash command and returns its output.",
      {
        command: text("The command to execute"),
        timeout: number("Optional timeout in milliseconds (max 600000)"),
        description: text("Clear, concise description of what this command does in active voice."),
        run_in_background: flag(),
        dangerouslyDisableSandbox: flag(),
      },
      ["command"],
    ),
    tool("CronCreate", "Schedule a prompt to run on a cron schedule.", { cron: text(), prompt: text() }, [
      "cron",
      "prompt",
    ]),
    tool(
      "Edit",
      "Performs exact string replacements in files.",
      {
        file_path: text("The absolute path to the file to modify"),
        old_string: text("The text to replace"),
        new_string: text("The text to replace it with (must be different from old_string)"),
        replace_all: flag("Replace all occurrences of old_string (default false)"),
      },
      ["file_path", "old_string", "new_string"],
    ),
    tool("EnterWorktree", "Enter a git worktree.", { name: text(), path: text() }),
    tool(
      "NotebookEdit",
      "Completely replaces the contents of a specific cell in a Jupyter notebook (.ipynb file) with new source.",
      { notebook_path: text("The absolute path to the Jupyter notebook file to edit"), new_source: text() },
      ["notebook_path", "new_source"],
    ),
    tool(
      "Read",
      "Reads a file from the local filesystem. You can access any file directly by using this tool.",
      {
        file_path: text("The absolute path to the file to read"),
        offset: number("The line number to start reading from."),
        limit: number("The number of lines to read."),
        pages: text(),
      },
      ["file_path"],
    ),
    tool(
      "SendMessage",
      "Send a message to another agent.",
      { to: text(), summary: text(), message: text() },
      ["to", "message"],
    ),
    tool(
      "TaskOutput",
      "Retrieves output from a running or completed task.",
      { task_id: text(), block: flag() },
      ["task_id"],
    ),
    tool(
      "WebFetch",
      "Fetches content from a specified URL and processes it.",
      { url: text(), prompt: text() },
      ["url", "prompt"],
    ),
    tool("WebSearch", "Allows Claude to search the web and use the results.", { query: text() }, ["query"]),
    tool(
      "Workflow",
      "Run a workflow script.",
      { script: text(), name: text(), description: text(), title: text(), args: list(), scriptPath: text() },
      [],
    ),
    tool(
      "Write",
      "Writes a file to the local filesystem.",
      {
        file_path: text("The absolute path to the file to write (must be absolute, not relative)"),
        content: text("The content to write to the file"),
      },
      ["file_path", "content"],
    ),
  ],
};
