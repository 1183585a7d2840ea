import type { ChatMessage, ToolStatus } from "@longrun/protocol";
import { describe, expect, it } from "vitest";
import { createTokenizer } from "../tokenizer.ts";
import { renderLedger } from "./render-ledger.ts";
import { errorLine, resultOutcome } from "./result-outcome.ts";
import { type LedgerSource, updateLedger } from "./update-ledger.ts";
import { workingFiles } from "./working-files.ts";

const tokenizer = createTokenizer("o200k_base");

/** A history built call by call: each call is an assistant message followed by its result. */
function history() {
  const sources: LedgerSource[] = [];
  let step = 0;
  let id = 0;
  const api = {
    user(text: string, name?: string) {
      sources.push({ message: { role: "user", content: text, ...(name ? { name } : {}) }, step: step++ });
      return api;
    },
    call(tool: string, args: unknown, result: string, status?: ToolStatus) {
      const callId = `call_${id++}`;
      const message: ChatMessage = {
        role: "assistant",
        content: null,
        tool_calls: [
          { id: callId, type: "function", function: { name: tool, arguments: JSON.stringify(args) } },
        ],
      };
      sources.push({ message, step: step++ });
      sources.push({
        message: { role: "tool", tool_call_id: callId, content: result },
        step: step++,
        ...(status ? { status } : {}),
      });
      return api;
    },
    sources,
  };
  return api;
}

describe("updateLedger", () => {
  it("reads Claude Code's tools: Read, Write, Edit, Bash exit codes, TodoWrite, Task", () => {
    const { sources } = history()
      .user("Implement the parser")
      .call("Read", { file_path: "/repo/src/parse.ts", offset: 10, limit: 20 }, "    10→export function")
      .call(
        "Write",
        { file_path: "/repo/src/lexer.ts", content: "x" },
        "File created successfully at: /repo/src/lexer.ts",
      )
      .call(
        "Edit",
        { file_path: "/repo/src/parse.ts", old_string: "a", new_string: "b" },
        "The file has been updated.",
      )
      .call(
        "Edit",
        { file_path: "/repo/src/ast.ts", old_string: "zz", new_string: "b" },
        "<tool_use_error>String to replace not found in file.\nString: zz</tool_use_error>",
      )
      .call("Bash", { command: "npm test 2>&1 | tail -5" }, "Exit code 1\nFAIL src/parse.test.ts\n1 failed")
      .call(
        "TodoWrite",
        {
          todos: [
            { content: "lexer", status: "completed", activeForm: "x" },
            { content: "parser", status: "in_progress" },
          ],
        },
        "ok",
      )
      .call(
        "Task",
        { description: "explore tests", prompt: "…", subagent_type: "Explore" },
        "Found 3 test files.\nMore",
      )
      .user("<system-reminder>…</system-reminder>", "meta")
      .user("Use the visitor pattern, not a switch");
    const ledger = updateLedger({ messages: sources });
    expect(ledger.readFiles).toEqual([{ path: "/repo/src/parse.ts", lines: "10-29", step: 1 }]);
    expect(ledger.changedFiles).toEqual([
      { path: "/repo/src/lexer.ts", action: "created", step: 3 },
      { path: "/repo/src/parse.ts", action: "edited", step: 5 },
    ]);
    expect(ledger.commands).toEqual([
      { command: "npm test 2>&1 | tail -5", exitCode: 1, outcome: "failed", step: 9 },
    ]);
    expect(ledger.errors.map((error) => [error.step, error.line, error.resolvedAt])).toEqual([
      [7, "String to replace not found in file.", null],
      [9, "FAIL src/parse.test.ts", null],
    ]);
    expect(ledger.todos).toEqual([
      { content: "lexer", status: "completed" },
      { content: "parser", status: "in_progress" },
    ]);
    expect(ledger.subAgents).toEqual([{ name: "explore tests", step: 13, report: "Found 3 test files." }]);
    expect(ledger.userNotes.map((note) => note.text)).toEqual([
      "Implement the parser",
      "Use the visitor pattern, not a switch",
    ]);
    expect(ledger.throughStep).toBe(16);
  });

  it("reads longrun's own tools, with recorded statuses", () => {
    const { sources } = history()
      .call("read_file", { path: "src/a.ts", startLine: 5, endLine: 9 }, "5\tx")
      .call("write_file", { path: "notes.md", content: "n" }, "Created notes.md (1 characters, 1 lines)")
      .call("edit_file", { path: "src/a.ts", oldText: "x", newText: "y" }, "Edited src/a.ts")
      .call("run_command", { command: "npm run build" }, "error TS2322: nope\n[exit code: 2]", "error")
      .call("run_command", { command: "npm run build" }, "(no output)\n[exit code: 0]", "ok")
      .call("update_plan", { plan: "1. lex\n2. parse" }, "Plan updated (2 lines).")
      .call("todo_write", { todos: [{ content: "parse", status: "pending" }] }, "TODO list updated")
      .call(
        "spawn_agents",
        {
          agents: [
            { name: "scout", brief: "look" },
            { name: "fixer", brief: "fix" },
          ],
        },
        "## scout (completed)\nAll good.\n\n## fixer (failed)\nThe sub-agent did not complete: failed.",
        "error",
      );
    const ledger = updateLedger({ messages: sources });
    expect(ledger.readFiles).toEqual([{ path: "src/a.ts", lines: "5-9", step: 0 }]);
    expect(ledger.changedFiles.map((file) => [file.path, file.action])).toEqual([
      ["notes.md", "created"],
      ["src/a.ts", "edited"],
    ]);
    expect(ledger.commands).toEqual([
      { command: "npm run build", exitCode: 2, outcome: "failed", step: 6 },
      { command: "npm run build", exitCode: 0, outcome: "ok", step: 8 },
    ]);
    // The failed spawn is an error too; the build error was resolved by the rerun at step 8.
    expect(ledger.errors[0]).toMatchObject({
      step: 6,
      line: "error TS2322: nope",
      exitCode: 2,
      resolvedAt: 8,
    });
    expect(ledger.plan).toBe("1. lex\n2. parse");
    expect(ledger.todos).toEqual([{ content: "parse", status: "pending" }]);
  });

  it("reads mini-swe-agent's bash and SWE-agent's editor commands", () => {
    const { sources } = history()
      .call(
        "bash",
        { command: "cd /testbed && sed -n '1,40p' pkg/mod.py" },
        "<returncode>0</returncode>\n<output>\nx\n</output>",
      )
      .call("bash", { command: "grep -rn nothing ." }, "<returncode>1</returncode>\n<output>\n</output>")
      .call(
        "bash",
        { command: "python reproduce.py" },
        '<returncode>1</returncode>\n<output>\nTraceback (most recent call last):\n  File "reproduce.py", line 3\nValueError: bad VR\n</output>',
      )
      .call(
        "open",
        { path: "src/fields.py", line_number: 100 },
        "[File: src/fields.py (1997 lines total)]\n1:x",
      )
      .call(
        "edit",
        { search: "a", replace: "b" },
        "Text replaced.\n[File: /testbed/src/fields.py (1998 lines total)]",
      )
      .call("create", { command: "create printenv.pl" }, "[File: /x/printenv.pl (1 lines total)]\n1:")
      .call("insert", { text: "x" }, "[File: /testbed/reproduce.py (10 lines total)]");
    const ledger = updateLedger({ messages: sources });
    expect(ledger.readFiles.map((file) => file.path)).toEqual(["pkg/mod.py", "src/fields.py"]);
    expect(ledger.changedFiles.map((file) => [file.path, file.action])).toEqual([
      ["/testbed/src/fields.py", "edited"],
      ["printenv.pl", "created"],
      ["/testbed/reproduce.py", "edited"],
    ]);
    // grep finding nothing is not an error; the traceback's exception line is the telling one.
    expect(ledger.errors.map((error) => error.line)).toEqual(["ValueError: bad VR"]);
  });

  it("is a fold: the facts in one batch or in several give the same ledger, and it is deterministic", () => {
    const { sources } = history()
      .user("go")
      .call("bash", { command: "echo a > a.txt" }, "<returncode>0</returncode>")
      .call("bash", { command: "cat a.txt" }, "<returncode>0</returncode>\n<output>\na\n</output>")
      .call("bash", { command: "false" }, "<returncode>1</returncode>\n<output>\nboom\n</output>")
      .call("bash", { command: "false" }, "<returncode>0</returncode>\n<output>\n</output>");
    const once = updateLedger({ messages: sources });
    const first = updateLedger({ messages: sources.slice(0, 5) });
    const twice = updateLedger({ previous: first, messages: sources.slice(5) });
    expect(twice).toEqual(once);
    expect(updateLedger({ messages: sources })).toEqual(once);
    expect(once.errors[0]?.resolvedAt).toBe(7);
    // The previous ledger is never mutated.
    expect(first.errors[0]?.resolvedAt ?? null).toBe(null);
  });

  it("takes plan, TODOs and pending approvals from the agent state when given", () => {
    const ledger = updateLedger({
      messages: [],
      state: {
        plan: "ship",
        todos: [{ content: "test", status: "pending" }],
        pendingApprovals: [
          {
            callId: "c1",
            messageId: "m",
            toolName: "run_command",
            arguments: '{"command":"rm -rf build"}',
            requestedAt: 1,
          },
          {
            callId: "c2",
            messageId: "m",
            toolName: "run_command",
            arguments: "{}",
            requestedAt: 1,
            decision: "deny",
          },
        ],
      },
    });
    expect(ledger.pendingApprovals).toEqual([
      { callId: "c1", toolName: "run_command", arguments: '{"command":"rm -rf build"}' },
    ]);
    expect(ledger.plan).toBe("ship");
  });
});

describe("renderLedger", () => {
  const many = history();
  for (let index = 0; index < 40; index++) {
    many.call(
      "Write",
      { file_path: `/home/u/project/src/module_${index}.ts`, content: "x" },
      "File created successfully",
    );
  }
  for (let index = 0; index < 15; index++)
    many.call("Read", { file_path: `/home/u/project/docs/read_${index}.md` }, "x");
  many.call("Bash", { command: "make" }, "Exit code 2\nmake: *** No rule to make target");
  const ledger = updateLedger({ messages: many.sources });

  it("keeps the last error, then changed files and the last 10 reads, newest first, within the budget", () => {
    const rendered = renderLedger(ledger, { budgetTokens: 300, tokenizer });
    expect(rendered.tokens).toBeLessThanOrEqual(300);
    expect(tokenizer.count(rendered.text)).toBe(rendered.tokens);
    expect(rendered.text).toContain("Paths below are relative to /home/u/project/");
    expect(rendered.text).toContain("make: *** No rule to make target");
    expect(rendered.text).toContain("src/module_39.ts created #");
    expect(rendered.text).not.toContain("src/module_0.ts");
    expect(rendered.text).toMatch(/Files changed \(\+\d+ older not shown\)/);
    expect(rendered.omitted).toBeGreaterThan(0);
  });

  it("shows everything with room, and the same text for the same ledger", () => {
    const rendered = renderLedger(ledger, { budgetTokens: 10_000, tokenizer });
    expect(rendered.omitted).toBe(0);
    expect(rendered.text).toContain("src/module_0.ts created #");
    expect(rendered.text).toContain("docs/read_5.md");
    expect(renderLedger(structuredClone(ledger), { budgetTokens: 10_000, tokenizer }).text).toBe(
      rendered.text,
    );
  });
  it("lists a file the agent read and changed once, among the changed files", () => {
    const edited = history()
      .call("Read", { file_path: "/home/u/project/src/app.ts" }, "export const a = 1;")
      .call("Read", { file_path: "/home/u/project/src/util.ts" }, "export const u = 2;")
      .call("Edit", { file_path: "/home/u/project/src/app.ts", old_string: "1", new_string: "2" }, "ok");
    const text = renderLedger(updateLedger({ messages: edited.sources }), {
      budgetTokens: 10_000,
      tokenizer,
    }).text;
    expect(text).toMatch(/^Files changed: \/home\/u\/project\/src\/app\.ts edited #4$/m);
    expect(text).toMatch(/^Files read \(latest last\): \/home\/u\/project\/src\/util\.ts$/m);
    expect(text.match(/src\/app\.ts/g)).toHaveLength(1);
  });
});

describe("result outcome", () => {
  it.each([
    ["<returncode>2</returncode>\n<output>\nusage: x\n</output>", undefined, "failed", 2, "usage: x"],
    ["Exit code 128\nfatal: not a git repository", "ok", "failed", 128, "fatal: not a git repository"],
    ["all good\n[exit code: 0]", "ok", "ok", 0, ""],
    ["Traceback (most recent call last):\n  File x\nKeyError: 'a'", "ok", "failed", null, "KeyError: 'a'"],
    ["bash: foo: command not found", undefined, "failed", null, "bash: foo: command not found"],
    ["partial output", "cancelled", "unknown", null, ""],
    ["partial output", undefined, "unknown", null, ""],
    ["partial output", "ok", "ok", null, ""],
  ] as const)("%j (%s)", (text, status, outcome, exitCode, line) => {
    expect(resultOutcome(text, status)).toEqual({ outcome, failed: outcome === "failed", exitCode, line });
  });

  it("clips a long line", () => {
    expect(errorLine(`Error: ${"x".repeat(400)}`).length).toBe(160);
  });
});

describe("workingFiles", () => {
  it("lists what the agent changed (still there) and read, newest first, once per path", () => {
    const { sources } = history()
      .call("read_file", { path: "a.ts" }, "x")
      .call("write_file", { path: "b.ts", content: "x" }, "Created b.ts")
      .call("run_command", { command: "rm gone.ts" }, "[exit code: 0]", "ok")
      .call("read_file", { path: "c.ts" }, "x")
      .call("edit_file", { path: "a.ts", oldText: "x", newText: "y" }, "Edited a.ts");
    const ledger = updateLedger({ messages: sources });
    expect(workingFiles(ledger)).toEqual([
      { path: "a.ts", step: 8 },
      { path: "c.ts", step: 6 },
      { path: "b.ts", step: 2 },
    ]);
    expect(workingFiles(ledger, 1)).toEqual([{ path: "a.ts", step: 8 }]);
  });
});

describe("errorLine", () => {
  it("prefers the first line that names a failure over progress output", () => {
    expect(
      errorLine(
        "Exit code 2\n==> fine\nCompiling 1 file (.ex)\n  1) test mount\n     Assertion with =~ failed\n",
      ),
    ).toBe("Assertion with =~ failed");
    expect(errorLine("Exit code 1\nThe following paths are ignored\nhint: use -f")).toBe(
      "The following paths are ignored",
    );
  });
});
