import OpenAI from "openai";
import type { ChatCompletionMessageParam, ChatCompletionTool } from "openai/resources/chat/completions";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CLIENT_TOOL_LISTS } from "./client-tool-lists.ts";
import { toolDefinitions } from "./fake-workspace.ts";
import { simModelName } from "./model-options.ts";
import { CODER_NOTES, CODER_REPORT } from "./scripts/coder.ts";
import { type SimModelServer, startSimModel } from "./server.ts";

let server: SimModelServer;
let client: OpenAI;

beforeAll(async () => {
  server = await startSimModel({ logBodies: false });
  client = new OpenAI({ baseURL: server.baseURL, apiKey: "sim", maxRetries: 0 });
});
afterAll(async () => {
  await server.close();
});

const CWD = "/work/project";
const PROJECT: Record<string, string> = {
  "README.md": "# demo\n",
  "src/a.ts": "export const a = 1;\n",
  "src/b.ts": "export const b = 2;\n",
  "src/c.ts": "export const c = 3;\n",
  "test/a.test.ts": "export {};\n",
};

/** Plays the client's side: each tool does to an in-memory folder what the real client would do. */
function execute(files: Map<string, string>, name: string, argumentsText: string): string {
  const args = JSON.parse(argumentsText) as Record<string, unknown>;
  const relative = (path: unknown) => String(path).replace(`${CWD}/`, "").replace(/^\.\//, "");
  const command = String(args.cmd ?? args.command ?? "");
  if (name === "exec_command" || name === "bash" || name === "Bash") {
    const written = /^cat > (\S+) <<'SIM_EOF'\n([\s\S]*)\nSIM_EOF$/.exec(command);
    if (written) return files.set(relative(written[1]), written[2]!) && "";
    const edited = /^sed -i 's\/(.*)\/(.*)\/' (\S+)$/.exec(command);
    if (edited) {
      const path = relative(edited[3]);
      files.set(path, (files.get(path) ?? "").replace(edited[1]!, edited[2]!));
      return "";
    }
    const read = /^sed -n '1,60p' (\S+)$/.exec(command);
    if (read) return files.get(relative(read[1])) ?? "No such file";
    if (command.startsWith("find")) return [...files.keys()].map((file) => `./${file}`).join("\n");
    return "ok";
  }
  if (name === "glob") return [...files.keys()].map((file) => `${CWD}/${file}`).join("\n");
  if (name === "grep") return [...files.keys()].map((file) => `${CWD}/${file}:1: export`).join("\n");
  if (name === "read") return files.get(relative(args.filePath)) ?? "No such file";
  if (name === "Read") return files.get(relative(args.file_path)) ?? "No such file";
  if (name === "Write")
    return files.set(relative(args.file_path), String(args.content)) && "File created successfully.";
  if (name === "Edit") {
    const path = relative(args.file_path);
    const content = files.get(path) ?? "";
    if (!content.includes(String(args.old_string))) return "Error: old_string not found";
    files.set(path, content.replace(String(args.old_string), String(args.new_string)));
    return "The file has been updated.";
  }
  if (name === "Grep") return [...files.keys()].map((file) => `${CWD}/${file}:1: export`).join("\n");
  if (name === "write")
    return files.set(relative(args.filePath), String(args.content)) && "Wrote file successfully.";
  if (name === "edit") {
    const path = relative(args.filePath);
    const content = files.get(path) ?? "";
    if (!content.includes(String(args.oldString))) return "Error: oldString not found";
    files.set(path, content.replace(String(args.oldString), String(args.newString)));
    return "Edit applied successfully.";
  }
  return "ok";
}

/** A shell as the clients' bash tools behave on the folder: the commands the coder runs. */
function shell(files: Map<string, string>, command: string, relative: (path: unknown) => string): string {
  const written = /^cat > (\S+) <<'SIM_EOF'\n([\s\S]*)\nSIM_EOF$/.exec(command);
  if (written) return files.set(relative(written[1]), written[2]!) && "";
  const edited = /^sed -i 's\/(.*)\/(.*)\/' (\S+)$/.exec(command);
  if (edited) {
    const path = relative(edited[3]);
    files.set(path, (files.get(path) ?? "").replace(edited[1]!, edited[2]!));
    return "";
  }
  const read = /^sed -n '1,60p' (\S+)$/.exec(command);
  if (read) return files.get(relative(read[1])) ?? "No such file";
  if (command.startsWith("find")) return [...files.keys()].map((file) => `./${file}`).join("\n");
  return "ok";
}

/**
 * pi's and qwen-code's tools, each with its own argument names, as those clients run them: a call
 * with another client's argument names fails the way theirs do (a missing argument).
 */
function executeOther(files: Map<string, string>, name: string, argumentsText: string): string {
  const args = JSON.parse(argumentsText) as Record<string, unknown>;
  const relative = (path: unknown) => String(path).replace(`${CWD}/`, "").replace(/^\.\//, "");
  const need = (key: string) => {
    if (typeof args[key] !== "string") throw new Error(`${name}: missing required argument ${key}`);
    return args[key] as string;
  };
  // qwen-code's file tools refuse a relative file_path (as 0.24 does: "File path must be absolute").
  if (typeof args.file_path === "string" && !args.file_path.startsWith("/"))
    return `File path must be absolute: ${args.file_path}`;
  const edit = (pathKey: string, oldKey: string, newKey: string) => {
    const path = relative(need(pathKey));
    const content = files.get(path) ?? "";
    if (!content.includes(need(oldKey))) return `Error: ${oldKey} not found in ${path}`;
    files.set(path, content.replace(need(oldKey), need(newKey)));
    return "Edited.";
  };
  switch (name) {
    case "bash": // pi
    case "run_shell_command": // qwen-code
      return shell(files, need("command"), relative);
    case "read":
      return files.get(relative(need("path"))) ?? "Error: no such file";
    case "write":
      return files.set(relative(need("path")), need("content")) && "Written.";
    case "edit":
      return "path" in args
        ? edit("path", "oldText", "newText")
        : edit("file_path", "old_string", "new_string");
    case "read_file":
      return files.get(relative(need("file_path"))) ?? "Error: no such file";
    case "write_file":
      return files.set(relative(need("file_path")), need("content")) && "Written.";
    case "glob":
      return [...files.keys()].map((file) => `${CWD}/${file}`).join("\n");
    case "search_file_content":
      return [...files.keys()].map((file) => `${file}:1: export`).join("\n");
    case "list_directory":
      return [...files.keys()].join("\n");
    default:
      throw new Error(`${name} was not expected`);
  }
}

async function session(
  toolNames: string[] | ChatCompletionTool[],
  context: string,
  run: (files: Map<string, string>, name: string, argumentsText: string) => string = execute,
  task = "Survey this project, keep NOTES.md and finish with REPORT.md.",
) {
  const files = new Map(Object.entries(PROJECT));
  const messages: ChatCompletionMessageParam[] = [
    { role: "system", content: `You are a coding agent.\n${context}` },
    { role: "user", content: task },
  ];
  const used = new Map<string, number>();
  let steps = 0;
  for (let turn = 0; turn < 100; turn++) {
    const completion = await client.chat.completions.create({
      model: simModelName({ script: "coder", steps: 32 }),
      messages,
      tools:
        typeof toolNames[0] === "string"
          ? toolDefinitions(toolNames as string[])
          : (toolNames as ChatCompletionTool[]),
    });
    const message = completion.choices[0]!.message;
    messages.push(message as ChatCompletionMessageParam);
    if (!message.tool_calls?.length) return { files, used, steps, final: message.content ?? "" };
    steps += 1;
    for (const call of message.tool_calls) {
      if (call.type !== "function") continue;
      used.set(call.function.name, (used.get(call.function.name) ?? 0) + 1);
      messages.push({
        role: "tool",
        tool_call_id: call.id,
        content: run(files, call.function.name, call.function.arguments),
      });
    }
  }
  throw new Error("the scripted agent did not finish");
}

describe("coder script", () => {
  it("works in Codex's vocabulary: exec_command with relative paths", async () => {
    const result = await session(
      ["exec_command", "write_stdin"],
      `<environment_context><cwd>${CWD}</cwd></environment_context>`,
    );
    expect(result.steps).toBe(32);
    expect([...result.used.keys()]).toEqual(["exec_command"]);
    expect(result.files.get(CODER_NOTES)).toContain("progress: step 28");
    expect(result.files.get(CODER_REPORT)).toMatch(/Finished after 32 steps/);
    expect(result.files.get(CODER_REPORT)).toMatch(/src\/a\.ts/);
    expect(result.final).toMatch(/\[sim:done step=32\]/);
  });

  it("works in opencode's vocabulary: bash, read, write, edit, glob, grep, todowrite with absolute paths", async () => {
    const tools = ["bash", "edit", "glob", "grep", "read", "skill", "task", "todowrite", "webfetch", "write"];
    const result = await session(tools, `<env>\n  Working directory: ${CWD}\n</env>`);
    expect(result.steps).toBe(32);
    for (const name of ["bash", "edit", "glob", "grep", "read", "todowrite", "write"]) {
      expect(result.used.get(name), name).toBeGreaterThan(0);
    }
    expect(result.files.get(CODER_NOTES)).toContain("progress: step 28");
    expect(result.files.get(CODER_REPORT)).toMatch(/Files read \([1-9]/);
  });

  it("works in Claude Code's vocabulary: Bash, Read, Write, Edit, Grep, TodoWrite with file_path", async () => {
    const tools = ["Agent", "Bash", "Edit", "Glob", "Grep", "Read", "TodoWrite", "WebFetch", "Write"];
    const result = await session(
      tools,
      `Here is useful information about the environment:\n<env>\nPrimary working directory: ${CWD}\n</env>`,
    );
    expect(result.steps).toBe(32);
    for (const name of ["Bash", "Edit", "Grep", "Read", "TodoWrite", "Write"]) {
      expect(result.used.get(name), name).toBeGreaterThan(0);
    }
    expect(result.files.get(CODER_NOTES)).toContain("progress: step 28");
    expect(result.files.get(CODER_REPORT)).toMatch(/Files read \([1-9]/);
  });

  it("runs the project's tests at steps 9, 19 and 29 when the task asks it to, in Claude Code's and pi's tools", async () => {
    const task =
      "Survey this project: read its files, run its tests now and then, keep NOTES.md and finish with REPORT.md.";
    for (const [tools, prompt, run] of [
      [
        ["Bash", "Edit", "Grep", "Read", "Write"],
        `<env>\nPrimary working directory: ${CWD}\n</env>`,
        execute,
      ],
      [CLIENT_TOOL_LISTS.pi as ChatCompletionTool[], `Current working directory: ${CWD}`, executeOther],
    ] as const) {
      const commands: string[] = [];
      const result = await session(
        tools as string[] | ChatCompletionTool[],
        prompt,
        (files, name, argumentsText) => {
          const command = (JSON.parse(argumentsText) as { command?: unknown }).command;
          if (typeof command === "string") commands.push(command);
          return run(files, name, argumentsText);
        },
        task,
      );
      expect(result.steps).toBe(32);
      expect(commands.filter((command) => command === "node --test 2>&1")).toHaveLength(3);
      expect(commands.some((command) => command.startsWith("wc -l"))).toBe(false);
      expect(result.files.get(CODER_REPORT)).toMatch(/Finished after 32 steps/);
    }
  });

  it("works in pi's tools, read off their schemas: path, oldText, newText (never opencode's filePath)", async () => {
    const result = await session(
      CLIENT_TOOL_LISTS.pi as ChatCompletionTool[],
      `You are an expert coding assistant operating inside pi.\nCurrent working directory: ${CWD}`,
      executeOther,
    );
    expect(result.steps).toBe(32);
    for (const name of ["bash", "edit", "read", "write"])
      expect(result.used.get(name), name).toBeGreaterThan(0);
    expect(result.files.get(CODER_NOTES)).toContain("progress: step 28");
    expect(result.files.get(CODER_REPORT)).toMatch(/Finished after 32 steps/);
    expect(result.files.get(CODER_REPORT)).toMatch(/Files read \([1-9]/);
  });

  it("works in qwen-code's tools: read_file, write_file, edit with file_path, run_shell_command, its search and glob", async () => {
    const result = await session(
      CLIENT_TOOL_LISTS.qwen as ChatCompletionTool[],
      // qwen-code 0.24 names its folder only this way (in its first user message).
      `This is the Qwen Code. I'm currently working in the directory: ${CWD}`,
      executeOther,
    );
    expect(result.steps).toBe(32);
    for (const name of [
      "run_shell_command",
      "edit",
      "read_file",
      "write_file",
      "glob",
      "search_file_content",
    ])
      expect(result.used.get(name), name).toBeGreaterThan(0);
    expect(result.files.get(CODER_NOTES)).toContain("progress: step 28");
    expect(result.files.get(CODER_REPORT)).toMatch(/Files read \([1-9]/);
  });
});
