import type { ChatMessage, ToolStatus } from "@longrun/protocol";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createTokenizer } from "../tokenizer.ts";
import { unshownOutcomes } from "./outcome-check.ts";
import { renderLedger } from "./render-ledger.ts";
import { type LedgerSource, updateLedger } from "./update-ledger.ts";

const tokenizer = createTokenizer("o200k_base");
const RUNS = 3_000;

/** What kind of call a generated result answers (each with the bodies its tools print). */
type Kind = "run" | "look" | "edit" | "read";

/** A body and whether it shows, in words, that the call failed. */
interface Body {
  text: string;
  fails: boolean;
}

const BODIES: Record<Kind, Body[]> = {
  run: [
    { text: "/bin/bash: line 3: pyhton: command not found", fails: true },
    { text: "Traceback (most recent call last):\n  File \"fix.py\", line 2\nKeyError: 'a'", fails: true },
    {
      text: "FAILED tests/test_a.py::test_x - assert 1 == 2\n==== 1 failed, 2 passed in 0.1s ====",
      fails: true,
    },
    { text: "src/a.ts(3,1): error TS2304: Cannot find name 'x'.", fails: true },
    { text: "Error: ENOENT: no such file or directory, open 'cfg.json'", fails: true },
    { text: "panic: runtime error: index out of range [3]", fails: true },
    { text: "make: *** [Makefile:4: all] Error 1", fails: true },
    { text: "Found 0 errors.", fails: false },
    { text: "Checked 12 files, 0 errors, 0 warnings", fails: false },
    { text: "writing out.txt\nerror_count = 0\ndone", fails: false },
    { text: "==== 3 passed in 0.20s ====", fails: false },
    { text: "Your command ran successfully and did not produce any output.", fails: false },
    { text: "", fails: false },
  ],
  look: [
    { text: "cat: notes.txt: No such file or directory", fails: true },
    { text: "/bin/bash: line 1: cd: nowhere: No such file or directory", fails: true },
    { text: "Error: this line is the file's content\nFAILED is a word in it", fails: false },
    { text: "Traceback (most recent call last):\nValueError: quoted in a log file", fails: false },
    { text: "src/log.py:3: print('error: x')", fails: false },
    { text: "", fails: false },
  ],
  edit: [
    { text: "Error: old_string not found in file", fails: true },
    { text: "[ERROR] The SEARCH block does not match anything in the file.", fails: true },
    {
      text: "ERROR:\nNo replacement was performed, old_str `a` did not appear verbatim in f.py.",
      fails: true,
    },
    { text: "<tool_use_error>File has not been read yet.</tool_use_error>", fails: true },
    { text: "File created successfully at: f.py", fails: false },
    {
      text: "The file f.py has been edited. Here's the result of running `cat -n`:\n1\terror = 0",
      fails: false,
    },
  ],
  read: [
    { text: "Error: File not found: /repo/x.py", fails: true },
    { text: "     1\timport errors\n     2\traise ValueError('Permission denied')", fails: false },
    { text: "1:# Notes\n2:command not found is what bash says", fails: false },
  ],
};

/** An exit-code envelope around a body (only shell results carry one). */
type Envelope = "none" | "returncode" | "claude" | "longrun" | "openhands";

function wrap(body: string, envelope: Envelope, code: number): string {
  switch (envelope) {
    case "none":
      return body;
    case "returncode":
      return `<returncode>${code}</returncode>\n<output>\n${body}\n</output>`;
    case "claude":
      return `Exit code ${code}\n${body}`;
    case "longrun":
      return `${body}\n[exit code: ${code}]`;
    case "openhands":
      return `${body}\n[The command completed with exit code ${code}.]`;
  }
}

interface GeneratedCall {
  kind: Kind;
  body: number;
  envelope: Envelope;
  code: number;
  status: ToolStatus | undefined;
}

const generatedCall: fc.Arbitrary<GeneratedCall> = fc.record({
  kind: fc.constantFrom<Kind>("run", "look", "edit", "read"),
  body: fc.nat({ max: 100 }),
  envelope: fc.constantFrom<Envelope>("none", "none", "returncode", "claude", "longrun", "openhands"),
  code: fc.constantFrom(0, 0, 1, 2, 127),
  status: fc.constantFrom<ToolStatus | undefined>(undefined, "ok", "ok", "error"),
});

/** A call, its result text, and what the result truly shows (the generator's knowledge). */
interface Case {
  tool: string;
  args: Record<string, unknown>;
  text: string;
  status: ToolStatus | undefined;
  /** The exit code the text carries (null: none). */
  code: number | null;
  truth: "ok" | "failed" | "unknown";
  /** The file the call would change (null: it only looks). */
  target: string | null;
}

function caseOf(call: GeneratedCall, index: number): Case {
  const bodies = BODIES[call.kind];
  const body = bodies[call.body % bodies.length] as Body;
  const shell = call.kind === "run" || call.kind === "look";
  const envelope = shell ? call.envelope : "none";
  const code = envelope === "none" ? null : call.code;
  const text = wrap(body.text, envelope, call.code);
  const tagged = body.text.includes("<tool_use_error>");
  // A read-only command that exits non-zero having printed nothing found nothing.
  const emptyLook = call.kind === "look" && body.text === "" && code !== null && code !== 0;
  // Exit 0 settles a read-only command; a command's output may still show it failed.
  const wordsFail = body.fails && (code === null || (code === 0 && call.kind === "run"));
  const failed =
    !emptyLook && (call.status === "error" || tagged || (code !== null && code !== 0) || wordsFail);
  const succeeded =
    emptyLook ||
    code !== null ||
    call.status === "ok" ||
    body.text.startsWith("Your command ran successfully") ||
    / passed in /.test(body.text);
  const truth = failed ? "failed" : succeeded ? "ok" : "unknown";
  switch (call.kind) {
    case "run":
      return {
        tool: "bash",
        args: { command: `python fix_${index}.py > out_${index}.txt` },
        text,
        status: call.status,
        code,
        truth,
        target: `out_${index}.txt`,
      };
    case "look":
      return {
        tool: "bash",
        args: { command: `cd src && cat notes_${index}.txt` },
        text,
        status: call.status,
        code,
        truth,
        target: null,
      };
    case "edit":
      return {
        tool: "write_file",
        args: { path: `src/f_${index}.ts`, content: "x" },
        text,
        status: call.status,
        code,
        truth,
        target: `src/f_${index}.ts`,
      };
    case "read":
      return {
        tool: "read_file",
        args: { path: `src/r_${index}.ts` },
        text,
        status: call.status,
        code,
        truth,
        target: null,
      };
  }
}

function sourcesOf(cases: readonly Case[]): LedgerSource[] {
  return cases.flatMap((item, index) => {
    const id = `call_${index}`;
    const call: ChatMessage = {
      role: "assistant",
      content: null,
      tool_calls: [
        { id, type: "function", function: { name: item.tool, arguments: JSON.stringify(item.args) } },
      ],
    };
    return [
      { message: call, step: index * 2 },
      {
        message: { role: "tool", tool_call_id: id, content: item.text },
        step: index * 2 + 1,
        ...(item.status ? { status: item.status } : {}),
      },
    ];
  });
}

describe("no ledger entry claims an outcome its result does not show", () => {
  it(`holds over ${RUNS} generated histories of results with and without exit codes and statuses`, () => {
    fc.assert(
      fc.property(fc.array(generatedCall, { minLength: 1, maxLength: 12 }), (calls) => {
        const cases = calls.map(caseOf);
        const sources = sourcesOf(cases);
        const ledger = updateLedger({ messages: sources });
        expect(unshownOutcomes(ledger, sources)).toBe(0);
        for (const command of ledger.commands) {
          const item = cases[(command.step ?? -1) / 2] as Case;
          // The exit code is the result's own, and the outcome is what the result shows.
          expect(command.exitCode).toBe(item.code);
          expect(command.outcome).toBe(item.truth);
        }
        cases.forEach((item, index) => {
          if (item.target === null) return;
          const changed = ledger.changedFiles.some((file) => file.path === item.target);
          // A shell command's files need a shown success; an editor's, only no shown failure.
          const confirmed = item.tool === "bash" ? item.truth === "ok" : item.truth !== "failed";
          expect(changed, `call ${index}: ${item.text}`).toBe(confirmed);
        });
        const lastFailed = cases.findLastIndex((item) => item.truth === "failed");
        if (lastFailed >= 0) expect(ledger.errors.at(-1)?.step).toBe(lastFailed * 2);
        else expect(ledger.errors).toEqual([]);
        const text = renderLedger(ledger, { budgetTokens: 4_000, tokenizer }).text;
        // No exit code rendered for a command whose result carried none.
        for (const command of ledger.commands) {
          if (command.exitCode !== null) continue;
          expect(text).not.toContain(`\`${command.command}\` 0`);
        }
      }),
      { numRuns: RUNS },
    );
  });
});
