import type { LedgerOutcome, ToolStatus } from "@longrun/protocol";
import { EXCEPTION_LINE, failureInText, type ResultScope, successInText } from "./failure-text.ts";

/**
 * What a tool result shows about how its call went: `ok` and `failed` only when the result says so
 * (an exit code, a recorded status, or its own words); `unknown` otherwise. Unknown is never
 * rendered as success.
 */
export type Outcome = LedgerOutcome;

/** Whether a tool result reports a failure, its exit code, and the line that says what went wrong. */
export interface ResultOutcome {
  outcome: Outcome;
  /** `outcome === "failed"`. */
  failed: boolean;
  /** The exit code the result carries (null: it carries none; never guessed). */
  exitCode: number | null;
  /** The telling line of a failure ("" when it did not fail or said nothing). */
  line: string;
}

/** How to read a result: what kind of call it answers. */
export interface OutcomeOptions {
  /** The call only looked (a read-only command or a read/search tool). */
  readOnly?: boolean;
  /** Which part of the result is the tool's own voice (default: `report`, the first line). */
  scope?: ResultScope;
  /** Programs of the shell command (a read-only command's output trusts only their complaints). */
  programs?: readonly string[] | null;
}

/** Longest error line kept, in characters. */
export const ERROR_LINE_CHARS = 160;

const RETURN_CODE = /^\s*<returncode>(-?\d+)<\/returncode>/;
const CLAUDE_EXIT = /^Exit code (-?\d+)\b/;
const TRAILING_EXIT = /\[exit code: (-?\d+)\]\s*$/;
/** OpenHands' `[Command finished with exit code N]` / `[The command completed with exit code N.]`. */
const OPENHANDS_EXIT = /\[(?:Command finished with|The command completed with) exit code (-?\d+)\.?\]/;
/** Gemini CLI's shell tool: an `Exit Code: N` line among `Stdout:`, `Stderr:`, `Error:`. */
const GEMINI_EXIT = /^Exit Code: (-?\d+)\s*$/m;
const TOOL_USE_ERROR = /<tool_use_error>([\s\S]*?)(?:<\/tool_use_error>|$)/;
const TRACEBACK = "Traceback (most recent call last):";
const FAILURE_WORDS =
  /\b(?:error|errors|fail|failed|failure|failures|exception|fatal|panic|denied|cannot|could not|not found|undefined)\b/i;

/** Whitespace collapsed and cut to ERROR_LINE_CHARS. */
export function clipLine(text: string, max = ERROR_LINE_CHARS): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length <= max ? flat : `${flat.slice(0, max - 1)}…`;
}

/** The output inside the envelopes tools wrap it in. */
function body(text: string): string {
  return (
    text
      .replace(RETURN_CODE, "")
      .replace(/^\s*<output>\n?/, "")
      .replace(/<\/output>\s*$/, "")
      .replace(/^\s*<warning>[\s\S]*?<\/warning>\s*/, "")
      .replace(CLAUDE_EXIT, "")
      .replace(TRAILING_EXIT, "")
      .replace(OPENHANDS_EXIT, "")
      .replace(/<\/?tool_use_error>/g, "")
      // Cline: `Command executed.` and `Output:` before a command's output, `<error>` around a tool's.
      .replace(/^\s*Command executed\b[^\n]*\n(?:Output:[ \t]*\n?)?/, "")
      .replace(/^(The tool execution failed[^\n]*)\n<error>\n?/, "$1\n")
      .replace(/<\/error>/, "")
  );
}

/** The exit code a result carries in one of the envelopes agents use, or null when it carries none. */
function exitCodeOf(text: string): number | null {
  const code =
    text.match(RETURN_CODE)?.[1] ??
    text.match(CLAUDE_EXIT)?.[1] ??
    text.match(TRAILING_EXIT)?.[1] ??
    text.match(OPENHANDS_EXIT)?.[1] ??
    text.match(GEMINI_EXIT)?.[1];
  return code === undefined ? null : Number(code);
}

/**
 * The line that says what went wrong: a traceback's exception line, else the first line that names
 * a failure, else the first line that is not blank, clipped. Shared by the ledger and by whoever
 * checks what it kept.
 */
export function errorLine(text: string): string {
  const lines = body(text)
    .split("\n")
    .map((line) => line.replace(/\r$/, ""));
  if (text.includes(TRACEBACK)) {
    for (let index = lines.length - 1; index >= 0; index--) {
      const line = (lines[index] as string).trim();
      if (EXCEPTION_LINE.test(line)) return clipLine(line);
    }
  }
  // Build and test output often starts with progress lines: the first line that names a failure
  // says more than the first line.
  const telling = lines.find((line) => FAILURE_WORDS.test(line) && !/^\s*0 (failures|errors)\b/i.test(line));
  const first = telling ?? lines.find((line) => line.trim().length > 0);
  return first === undefined ? "" : clipLine(first);
}

function outcomeOf(outcome: Outcome, exitCode: number | null, line = ""): ResultOutcome {
  return { outcome, failed: outcome === "failed", exitCode, line };
}

/**
 * Reads a tool result. A recorded `error` status or `<tool_use_error>` is a failure; so is an exit
 * code other than 0 it carries (`<returncode>N</returncode>`, Claude Code's `Exit code N`, longrun's
 * `[exit code: N]`, OpenHands' and Gemini CLI's lines); exit 0 is success unless a command's output
 * shows it failed (a pipe hides the code). Without a code, its own words, read in `options.scope` (shell errors,
 * tracebacks, compiler and test-runner failures, tool error prefixes). Only then does a recorded `ok`
 * (or words of success) make it `ok`: a harness that records "ok" without knowing does not hide a
 * failure the text shows. What none of these tells is `unknown`. A read-only command that exits
 * non-zero with no output (grep found nothing) is not a failure.
 */
export function resultOutcome(
  text: string,
  status: ToolStatus | undefined,
  options: OutcomeOptions = {},
): ResultOutcome {
  if (status === "cancelled") return outcomeOf("unknown", null);
  const exitCode = exitCodeOf(text);
  const nonZero = exitCode !== null && exitCode !== 0;
  if (status === "error" || TOOL_USE_ERROR.test(text) || nonZero) {
    const line = errorLine(text);
    // A read-only command that printed nothing found nothing (grep 1, xargs grep 123): not a failure.
    if (options.readOnly && nonZero && line === "") return outcomeOf("ok", exitCode);
    return outcomeOf("failed", exitCode, line);
  }
  const output = body(text);
  const scope = options.scope ?? "report";
  // Exit 0 settles it, except for a command whose output shows it failed (`python x.py | tail`).
  if (exitCode === 0 && scope !== "run") return outcomeOf("ok", 0);
  const said = failureInText(output, scope, options.programs ?? null);
  if (exitCode === 0) return said === null ? outcomeOf("ok", 0) : outcomeOf("failed", 0, clipLine(said));
  if (said !== null) return outcomeOf("failed", null, clipLine(said));
  if (status === "ok" || successInText(output)) return outcomeOf("ok", null);
  return outcomeOf("unknown", null);
}
