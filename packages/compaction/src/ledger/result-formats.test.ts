import type { ChatMessage, ToolStatus } from "@longrun/protocol";
import { describe, expect, it } from "vitest";
import { createTokenizer } from "../tokenizer.ts";
import { callEffects } from "./call-effects.ts";
import { unshownOutcomes } from "./outcome-check.ts";
import { renderLedger } from "./render-ledger.ts";
import { resultOutcome } from "./result-outcome.ts";
import { type LedgerSource, updateLedger } from "./update-ledger.ts";

const tokenizer = createTokenizer("o200k_base");

/** How a result of `tool(args)` reads, as the ledger reads it. */
function outcome(tool: string, args: Record<string, unknown>, text: string, status?: ToolStatus) {
  const call = {
    id: "c",
    type: "function" as const,
    function: { name: tool, arguments: JSON.stringify(args) },
  };
  return resultOutcome(text, status, callEffects(call, text));
}

function sourcesOf(calls: readonly [string, Record<string, unknown>, string, ToolStatus?][]): LedgerSource[] {
  return calls.flatMap(([tool, args, text, status], index) => {
    const id = `call_${index}`;
    const call: ChatMessage = {
      role: "assistant",
      content: null,
      tool_calls: [{ id, type: "function", function: { name: tool, arguments: JSON.stringify(args) } }],
    };
    const result: ChatMessage = { role: "tool", tool_call_id: id, content: text };
    return [
      { message: call, step: index * 2 },
      { message: result, step: index * 2 + 1, ...(status ? { status } : {}) },
    ];
  });
}

// Hand-written in the shapes those agents print; none carries an exit code unless it says so.
const FAILING: [string, string, Record<string, unknown>, string, string][] = [
  [
    "SWE-agent: a typo'd cd",
    "bash",
    { command: "cd.." },
    "/bin/bash: line 12: cd..: command not found\n",
    "/bin/bash: line 12: cd..: command not found",
  ],
  [
    "SWE-agent: open on a missing file",
    "open",
    { path: "src/marshmallow/felds.py" },
    "Error: File name src/marshmallow/felds.py not found. Please provide a valid file name.",
    "Error: File name src/marshmallow/felds.py not found. Please provide a valid file name.",
  ],
  [
    "OpenHands: python traceback",
    "execute_bash",
    { command: "cd /workspace/django && python reproduce.py" },
    "Traceback (most recent call last):\n  File \"/workspace/django/reproduce.py\", line 4, in <module>\n    from django.db import connection\nModuleNotFoundError: No module named 'django'\n[Python Interpreter: /usr/bin/python]\nroot@runtime:/workspace/django # ",
    "ModuleNotFoundError: No module named 'django'",
  ],
  [
    "OpenHands: editor refusal",
    "str_replace_editor",
    { command: "str_replace", path: "/workspace/x.py", old_str: "a", new_str: "b" },
    "ERROR:\nNo replacement was performed, old_str `a` did not appear verbatim in /workspace/x.py.",
    "ERROR: No replacement was performed, old_str `a` did not appear verbatim in /workspace/x.py.",
  ],
  [
    "Gemini CLI: write outside the workspace",
    "write_file",
    { file_path: "/etc/x.conf", content: "x" },
    "Error: File path must be within one of the workspace directories: /home/u/app",
    "Error: File path must be within one of the workspace directories: /home/u/app",
  ],
  [
    "Cline: tool error",
    "replace_in_file",
    { path: "src/app.ts", diff: "..." },
    "[ERROR] The SEARCH block:\nconst a = 1\n...does not match anything in the file.",
    "[ERROR] The SEARCH block:",
  ],
  [
    "pytest failure",
    "bash",
    { command: "python -m pytest tests/test_fields.py -q" },
    "..F.\n=================================== FAILURES ===================================\n___ test_nested ___\nE       AssertionError: assert 1 == 2\nFAILED tests/test_fields.py::test_nested - AssertionError: assert 1 == 2\n========================= 1 failed, 3 passed in 0.42s =========================",
    "=================================== FAILURES =================================== ___ test_nested ___",
  ],
  [
    "tsc",
    "run_shell_command",
    { command: "npx tsc --noEmit" },
    "src/index.ts(12,5): error TS2322: Type 'string' is not assignable to type 'number'.",
    "src/index.ts(12,5): error TS2322: Type 'string' is not assignable to type 'number'.",
  ],
  [
    "go test",
    "execute_command",
    { command: "go test ./..." },
    "--- FAIL: TestParse (0.00s)\n    parse_test.go:14: got 1, want 2\nFAIL\nFAIL\texample.com/p\t0.002s",
    "--- FAIL: TestParse (0.00s)",
  ],
  [
    "cargo",
    "bash",
    { command: "cargo build" },
    "   Compiling demo v0.1.0\nerror[E0308]: mismatched types\n --> src/main.rs:3:18",
    "error[E0308]: mismatched types",
  ],
  [
    "node stack",
    "bash",
    { command: "node build.js" },
    "/app/build.js:3\nError: Cannot find module './config'\n    at Module._resolveFilename (node:internal/modules/cjs/loader:1145:15)",
    "Error: Cannot find module './config'",
  ],
  [
    "cat of a missing file",
    "bash",
    { command: "cat setup.cfg" },
    "cat: setup.cfg: No such file or directory",
    "cat: setup.cfg: No such file or directory",
  ],
  [
    "Maven: a checkstyle failure, [ERROR] lines after [INFO] progress",
    "execute_bash",
    { command: "bash /home/run.sh" },
    "[INFO] Scanning for projects...\n[INFO] There are 2 errors reported by Checkstyle 9.2 with checks.xml ruleset.\n[ERROR] src/main/java/a/Parser.java:[120] (regexp) RegexpMultiline: Line has trailing whitespace\n[INFO] BUILD FAILURE\n",
    "[ERROR] src/main/java/a/Parser.java:[120] (regexp) RegexpMultiline: Line has trailing whitespace",
  ],
  [
    "Gradle: a failed build",
    "execute_bash",
    { command: "./gradlew test" },
    "> Task :app:test\n\nFAILURE: Build failed with an exception.\n\n* What went wrong:\nExecution failed for task ':app:test'.\n",
    "FAILURE: Build failed with an exception.",
  ],
  [
    "CMake: a package it cannot find",
    "execute_bash",
    { command: "cd build && cmake -B . -S .." },
    '-- The C compiler identification is GNU 11.4.0\nCMake Error at CMakeLists.txt:27 (find_package):\n  Could not find a package configuration file provided by "LLVM".\n-- Configuring incomplete, errors occurred!\n',
    "CMake Error at CMakeLists.txt:27 (find_package):",
  ],
  [
    "Cline: zsh names the missing program last",
    "execute_command",
    { command: "shard-sd -o out.md in.md" },
    "Command executed.\nOutput:\nzsh: command not found: shard-sd\n",
    "zsh: command not found: shard-sd",
  ],
  [
    "Cline on Windows: PowerShell names the term it does not know",
    "execute_command",
    { command: "open index.html" },
    "Command executed.\nOutput:\nopen : The term 'open' is not recognized as the name of a cmdlet, function, script file, or operable program.\nAt line:1 char:1\n",
    "open : The term 'open' is not recognized as the name of a cmdlet, function, script file, or operable program.",
  ],
  [
    "cmd.exe: a program it cannot find",
    "execute_command",
    { command: "code ." },
    "'code' is not recognized as an internal or external command,\noperable program or batch file.\n",
    "'code' is not recognized as an internal or external command,",
  ],
  [
    "Cline: a script's own error prefix after the envelope",
    "execute_command",
    { command: "./bin/shard-sd in.md" },
    "Command executed.\nOutput:\nError: No output file specified. Use the -o flag.\n\nshard-sd (-h) -o OUTPUT_FILE INPUT_FILE.md\n",
    "Error: No output file specified. Use the -o flag.",
  ],
  [
    "Cline: a refused tool call, the reason inside <error>",
    "attempt_completion",
    { result: "" },
    "The tool execution failed with the following error:\n<error>\nMissing value for required parameter 'result'. Please retry with complete response.\n</error>",
    "The tool execution failed with the following error: Missing value for required parameter 'result'. Please retry with complete response.",
  ],
  [
    "apt: a package it cannot locate",
    "execute_bash",
    { command: "apt-get install -y llvm-dev" },
    "Reading package lists...\nBuilding dependency tree...\nE: Unable to locate package llvm-dev\n",
    "E: Unable to locate package llvm-dev",
  ],
  [
    "javac: only the closing count says so after a pipe",
    "execute_bash",
    { command: "javac Repro.java 2>&1 | tail -3" },
    "        JSON.parseObject(list, type, null);\n        ^\n2 errors\n",
    "2 errors",
  ],
  [
    "pip: a version that does not exist",
    "execute_bash",
    { command: "pip install frobnicate==9.9" },
    "Collecting frobnicate==9.9\nERROR: Could not find a version that satisfies the requirement frobnicate==9.9\n",
    "ERROR: Could not find a version that satisfies the requirement frobnicate==9.9",
  ],
  [
    "OpenHands: a command that timed out without an exit code",
    "execute_bash",
    { command: "mvn test" },
    "[INFO] Running a.ParserTest\n[The command timed out after 300 seconds. You may wait longer to see additional output by sending empty command '']",
    "[The command timed out after 300 seconds. You may wait longer to see additional output by sending empty command '']",
  ],
];

const SUCCEEDING: [string, string, Record<string, unknown>, string][] = [
  [
    "a README read with cat that quotes a shell's complaint",
    "execute_command",
    { command: "cat README.md" },
    "# Troubleshooting\nIf you see\nzsh: command not found: ollama\nput Ollama on your PATH.\n",
  ],
  [
    "pip's resolver notice on an install that succeeded",
    "bash",
    { command: "pip install -U wrapt" },
    "<returncode>0</returncode>\n<output>\nCollecting wrapt\n  Downloading wrapt-1.17.2.tar.gz (55 kB)\nERROR: pip's dependency resolver does not currently take into account all the packages that are installed.\nSuccessfully installed wrapt-1.17.2\n</output>",
  ],
  [
    "Cline: a command that printed its result",
    "execute_command",
    { command: "python describe.py 012.png out.txt" },
    "Command executed.\nOutput:\nDescription written to out.txt\n",
  ],
  [
    "a clean Maven build: counts of zero failures and errors",
    "execute_bash",
    { command: "mvn -q test" },
    "[INFO] Tests run: 4, Failures: 0, Errors: 0, Skipped: 0\n[INFO] BUILD SUCCESS\n",
  ],
  [
    "grep hits that mention errors",
    "bash",
    { command: "grep -rn 'error' src/" },
    "src/log.py:12:    raise ValueError('error: bad input')\nsrc/cli.py:40:        print('Error: missing file')",
  ],
  [
    "a listing with error-named files",
    "bash",
    { command: "ls tests" },
    "errors.py\ntest_errors.py\nno_such_file_handler.py",
  ],
  [
    "a linter with zero errors",
    "bash",
    { command: "npx tsc --noEmit && npx eslint ." },
    "Found 0 errors.\n✔ 0 problems",
  ],
  [
    "Gemini CLI shell with no error",
    "run_shell_command",
    { command: "npm run build" },
    "Command: npm run build\nDirectory: (root)\nStdout: built in 1.2s\nStderr: (empty)\nError: (none)\nExit Code: 0\nSignal: (none)",
  ],
  [
    "a file whose text mentions a traceback, read",
    "read_file",
    { path: "docs/debugging.md" },
    "# Debugging\nWhen you see `Traceback (most recent call last):` read the last line first.\n",
  ],
  [
    "pytest all passed",
    "bash",
    { command: "pytest -q" },
    "....\n============================== 4 passed in 0.12s ==============================",
  ],
];

describe("outcomes from the result's own words", () => {
  it.each(FAILING)("%s: failed, no exit code, the telling line", (_name, tool, args, text, line) => {
    for (const status of [undefined, "ok"] as const) {
      const read = outcome(tool, args, text, status);
      expect(read).toEqual({ outcome: "failed", failed: true, exitCode: null, line });
    }
  });

  it.each(SUCCEEDING)("%s: not a failure", (_name, tool, args, text) => {
    expect(outcome(tool, args, text, "ok").outcome).toBe("ok");
    expect(outcome(tool, args, text, undefined).failed).toBe(false);
  });

  it("takes exit codes from OpenHands' and Gemini CLI's envelopes, and nothing else", () => {
    const bash = { command: "make" };
    expect(
      outcome("execute_bash", bash, "make: *** [all] Error 2\n[Command finished with exit code 2]"),
    ).toMatchObject({ outcome: "failed", exitCode: 2 });
    expect(outcome("execute_bash", bash, "done\n[The command completed with exit code 0.]")).toMatchObject({
      outcome: "ok",
      exitCode: 0,
    });
    expect(
      outcome(
        "run_shell_command",
        bash,
        "Command: make\nStdout: (empty)\nStderr: make: *** No targets.  Stop.\nError: (none)\nExit Code: 2",
      ),
    ).toMatchObject({ outcome: "failed", exitCode: 2 });
    // Output that prints a number is not an exit code.
    expect(outcome("bash", bash, "built 3 targets in 0 s")).toEqual({
      outcome: "unknown",
      failed: false,
      exitCode: null,
      line: "",
    });
  });

  it("says success only when the result says it: SWE-agent's no-output line, a recorded ok, a passing summary", () => {
    const command = { command: "touch a.txt" };
    expect(
      outcome("bash", command, "Your command ran successfully and did not produce any output.").outcome,
    ).toBe("ok");
    expect(outcome("bash", command, "").outcome).toBe("unknown");
    expect(outcome("bash", command, "", "ok").outcome).toBe("ok");
    expect(
      outcome("bash", { command: "cargo test" }, "running 3 tests\ntest result: ok. 3 passed; 0 failed")
        .outcome,
    ).toBe("ok");
  });
});

describe("the ledger of a transcript without exit codes", () => {
  const sources = sourcesOf([
    ["bash", { command: "cd.." }, "/bin/bash: line 12: cd..: command not found\n"],
    [
      "bash",
      { command: "python reproduce.py > out.txt" },
      "Traceback (most recent call last):\n  File \"reproduce.py\", line 1\nNameError: name 'x' is not defined",
    ],
    [
      "bash",
      { command: "echo ok > status.txt" },
      "Your command ran successfully and did not produce any output.",
    ],
    ["bash", { command: "make install" }, "installing into /usr/local/lib/demo"],
    ["create", { command: "create reproduce.py" }, "[File: /repo/reproduce.py (1 lines total)]\n1:"],
    [
      "edit_file",
      { path: "src/app.py", oldText: "a", newText: "b" },
      "Error: old text not found in src/app.py",
    ],
  ]);
  const ledger = updateLedger({ messages: sources });

  it("never writes an exit code the log did not have, and lists no failed or unknown command's files", () => {
    expect(ledger.commands).toEqual([
      { command: "cd..", exitCode: null, outcome: "failed", step: 0 },
      { command: "python reproduce.py > out.txt", exitCode: null, outcome: "failed", step: 2 },
      { command: "echo ok > status.txt", exitCode: null, outcome: "ok", step: 4 },
      { command: "make install", exitCode: null, outcome: "unknown", step: 6 },
    ]);
    expect(ledger.changedFiles.map((file) => [file.path, file.step])).toEqual([
      ["status.txt", 4],
      ["reproduce.py", 8],
    ]);
    expect(ledger.errors.map((error) => error.line)).toEqual([
      "/bin/bash: line 12: cd..: command not found",
      "NameError: name 'x' is not defined",
      "Error: old text not found in src/app.py",
    ]);
    expect(unshownOutcomes(ledger, sources)).toBe(0);
  });

  it("renders unknown as ? with its legend, and the last error without an exit code", () => {
    const text = renderLedger(ledger, { budgetTokens: 2_000, tokenizer }).text;
    expect(text).toContain(
      "Commands run (exit code, else the outcome shown; ? = none shown): `cd..` failed #0;",
    );
    expect(text).toContain("`make install` ? #6");
    expect(text).toContain("`echo ok > status.txt` ok #4");
    expect(text).toContain(
      "Last error: edit_file src/app.py #10 (unresolved): Error: old text not found in src/app.py",
    );
    expect(text).not.toMatch(/`cd\.\.` 0/);
  });

  it("counts what an older ledger claimed beyond the log: a guessed exit code 0, a failed command's file", () => {
    const older = structuredClone(ledger);
    older.commands = older.commands.map(({ outcome: _dropped, ...command }) => ({ ...command, exitCode: 0 }));
    older.changedFiles.push({ path: "out.txt", action: "written", step: 2 });
    // Four guessed codes (one on a success without a code) and one file from a failed command.
    expect(unshownOutcomes(older, sources)).toBe(5);
  });
});
