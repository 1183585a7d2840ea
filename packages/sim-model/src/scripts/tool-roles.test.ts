import { describe, expect, it } from "vitest";
import { CLIENT_TOOL_LISTS } from "../client-tool-lists.ts";
import { fillArguments, recognizeToolRoles, type ToolRole } from "./tool-roles.ts";

const rolesOf = (client: keyof typeof CLIENT_TOOL_LISTS) => {
  const { byRole } = recognizeToolRoles(CLIENT_TOOL_LISTS[client]);
  return Object.fromEntries(
    (["read", "list", "search", "write", "edit", "shell"] as ToolRole[]).map((role) => [
      role,
      byRole[role]?.name ?? null,
    ]),
  );
};

describe("recognizing a client's tools by role", () => {
  it("Codex: a shell (exec_command, argument cmd) and nothing it could read, list or write files with", () => {
    expect(rolesOf("codex")).toEqual({
      read: null,
      list: null,
      search: null,
      write: null,
      edit: null,
      shell: "exec_command",
    });
    const { byRole } = recognizeToolRoles(CLIENT_TOOL_LISTS.codex);
    expect(fillArguments(byRole.shell!, { command: "ls -la" })).toEqual({ cmd: "ls -la" });
  });

  it("opencode: every role, with its own argument names and absolute paths", () => {
    expect(rolesOf("opencode")).toEqual({
      read: "read",
      list: "glob",
      search: "grep",
      write: "write",
      edit: "edit",
      shell: "bash",
    });
    const { byRole } = recognizeToolRoles(CLIENT_TOOL_LISTS.opencode);
    expect(byRole.read!.absolutePaths).toBe(true);
    expect(fillArguments(byRole.edit!, { path: "/w/NOTES.md", oldText: "a", newText: "b" })).toEqual({
      filePath: "/w/NOTES.md",
      oldString: "a",
      newString: "b",
    });
    // bash requires a description besides the command.
    expect(fillArguments(byRole.shell!, { command: "ls", description: "List" })).toEqual({
      command: "ls",
      description: "List",
    });
  });

  it("pi: read, write, edit and bash with `path`, `oldText`, `newText`, relative paths allowed", () => {
    expect(rolesOf("pi")).toEqual({
      read: "read",
      list: null,
      search: null,
      write: "write",
      edit: "edit",
      shell: "bash",
    });
    const { byRole } = recognizeToolRoles(CLIENT_TOOL_LISTS.pi);
    expect(byRole.write!.absolutePaths).toBe(false);
    expect(fillArguments(byRole.edit!, { path: "NOTES.md", oldText: "a", newText: "b" })).toEqual({
      path: "NOTES.md",
      oldText: "a",
      newText: "b",
    });
  });

  it("qwen-code: its own names (read_file, write_file, run_shell_command…), file_path, and required flags filled", () => {
    expect(rolesOf("qwen")).toEqual({
      read: "read_file",
      list: "glob",
      search: "search_file_content",
      write: "write_file",
      edit: "edit",
      shell: "run_shell_command",
    });
    const { byRole, byName } = recognizeToolRoles(CLIENT_TOOL_LISTS.qwen);
    expect(byName.get("list_directory")?.role).toBe("list");
    expect(byName.get("read_many_files")?.role).not.toBe("read");
    expect(byName.has("save_memory")).toBe(false);
    expect(fillArguments(byRole.shell!, { command: "ls" })).toEqual({ command: "ls", is_background: false });
    expect(fillArguments(byRole.read!, { path: "/w/a.ts" })).toEqual({ file_path: "/w/a.ts" });
  });

  it("Claude Code: Read, Write, Edit, Bash among its 24 tools; web, notebook and agent tools are none of them", () => {
    expect(rolesOf("claude-code")).toEqual({
      read: "Read",
      list: null,
      search: null,
      write: "Write",
      edit: "Edit",
      shell: "Bash",
    });
    const { byName } = recognizeToolRoles(CLIENT_TOOL_LISTS["claude-code"]);
    for (const other of [
      "WebSearch",
      "WebFetch",
      "NotebookEdit",
      "Agent",
      "TaskOutput",
      "CronCreate",
      "Workflow",
    ])
      expect(byName.has(other), other).toBe(false);
  });

  it("a tool list it has never seen: roles from descriptions and schemas when the names say little", () => {
    const { byRole } = recognizeToolRoles([
      {
        type: "function",
        function: {
          name: "fs_get",
          description: "Reads the contents of a file at the given path.",
          parameters: {
            type: "object",
            properties: { target: { type: "string", description: "File path" } },
          },
        },
      },
      {
        type: "function",
        function: {
          name: "terminal_exec",
          description: "Executes a shell command.",
          parameters: {
            type: "object",
            properties: { command: { type: "array", items: { type: "string" } } },
          },
        },
      },
    ]);
    expect(byRole.read?.name).toBe("fs_get");
    expect(fillArguments(byRole.read!, { path: "a.ts" })).toEqual({ target: "a.ts" });
    expect(fillArguments(byRole.shell!, { command: "ls" })).toEqual({ command: ["bash", "-lc", "ls"] });
  });
});
