/**
 * A tiny in-memory workspace and tool executor for tests and benchmarks: it plays the runtime's side of
 * a scripted session (plausible tool results) without importing the runtime.
 */

export const SIM_TOOL_NAMES = [
  "read_file",
  "list_dir",
  "glob",
  "grep",
  "write_file",
  "edit_file",
  "run_command",
  "todo_write",
  "update_plan",
  "spawn_agents",
  "web_search",
] as const;

/** Chat Completions tool definitions for the given tool names (loose schemas; the sim reads names only). */
export function toolDefinitions(names: readonly string[] = SIM_TOOL_NAMES): Array<{
  type: "function";
  function: { name: string; description: string; parameters: Record<string, unknown> };
}> {
  return names.map((name) => ({
    type: "function" as const,
    function: { name, description: `The ${name} tool.`, parameters: { type: "object", properties: {} } },
  }));
}

/** Build a deterministic workspace of `count` source files (sizes vary, 1–6 KB). */
export function fakeWorkspace(count = 24): Map<string, string> {
  const files = new Map<string, string>();
  files.set("README.md", "# Demo project\n\nTODO: document the API.\n");
  files.set("package.json", JSON.stringify({ name: "demo", version: "1.0.0" }, null, 2));
  for (let index = 0; index < count; index += 1) {
    const folder = ["src", "src/lib", "test", "docs"][index % 4]!;
    const extension = folder === "docs" ? "md" : "ts";
    const lines = Array.from(
      { length: 30 + ((index * 37) % 120) },
      (_, line) => `export const value${line} = ${line * index}; // line ${line} of module ${index}`,
    );
    files.set(`${folder}/module-${index}.${extension}`, lines.join("\n"));
  }
  return files;
}

function parse(args: string): Record<string, unknown> {
  try {
    return JSON.parse(args) as Record<string, unknown>;
  } catch {
    return {};
  }
}

/** Execute one tool call against the in-memory workspace and return the tool message content. */
export function executeFakeTool(files: Map<string, string>, name: string, argumentsText: string): string {
  const args = parse(argumentsText);
  const path = typeof args.path === "string" ? args.path.replace(/^\.\//, "") : "";
  switch (name) {
    case "read_file":
      return files.get(path) ?? `Error: no such file ${path}`;
    case "list_dir": {
      const prefix = path === "." || path === "" ? "" : `${path.replace(/\/$/, "")}/`;
      const entries = new Set<string>();
      for (const file of files.keys()) {
        if (!file.startsWith(prefix)) continue;
        const rest = file.slice(prefix.length);
        entries.add(rest.includes("/") ? `${rest.split("/")[0]}/` : rest);
      }
      return [...entries].sort().join("\n");
    }
    case "glob":
      return [...files.keys()].sort().join("\n");
    case "grep": {
      const pattern = new RegExp(typeof args.pattern === "string" ? args.pattern : "TODO");
      const hits: string[] = [];
      for (const [file, content] of files) {
        content.split("\n").forEach((line, index) => {
          if (hits.length < 40 && pattern.test(line)) hits.push(`${file}:${index + 1}: ${line}`);
        });
      }
      return hits.join("\n") || "no matches";
    }
    case "write_file":
      files.set(path, typeof args.content === "string" ? args.content : "");
      return `Wrote ${path}`;
    case "edit_file": {
      const content = files.get(path);
      const oldText = typeof args.oldText === "string" ? args.oldText : "";
      if (content === undefined || !content.includes(oldText)) return `Error: oldText not found in ${path}`;
      files.set(path, content.replace(oldText, typeof args.newText === "string" ? args.newText : ""));
      return `Edited ${path}`;
    }
    case "run_command":
      return `$ ${String(args.command)}\nexit code 0`;
    case "spawn_agents":
      return "Sub-agents finished: all three reported back.";
    case "web_search":
      return `Results for ${String(args.query)}: (none)`;
    default:
      return "ok";
  }
}
