import type { ToolStatus } from "@longrun/protocol";

/** Whether a tool result reports a failure, its exit code, and the line that says what went wrong. */
export interface ResultOutcome {
  failed: boolean;
  exitCode: number | null;
  /** The telling line of a failure ("" when it succeeded or said nothing). */
  line: string;
}

/** Longest error line kept, in characters. */
export const ERROR_LINE_CHARS = 160;

const RETURN_CODE = /^\s*<returncode>(-?\d+)<\/returncode>/;
const CLAUDE_EXIT = /^Exit code (-?\d+)\b/;
const TRAILING_EXIT = /\[exit code: (-?\d+)\]\s*$/;
const TOOL_USE_ERROR = /<tool_use_error>([\s\S]*?)(?:<\/tool_use_error>|$)/;
const TRACEBACK = "Traceback (most recent call last):";
const EXCEPTION_LINE = /^[A-Za-z_][\w.]*(?:Error|Exception|Exit|Interrupt|Failure|Warning)\b.*$/;
const FAILURE_WORDS =
  /\b(?:error|errors|fail|failed|failure|failures|exception|fatal|panic|denied|cannot|could not|not found|undefined)\b/i;
const UNSTRUCTURED_FAILURE =
  /^(?:error|fatal|FAILED|ERROR|Error|panic|Exception)\b|: command not found$|No such file or directory$/;

/** Whitespace collapsed and cut to ERROR_LINE_CHARS. */
export function clipLine(text: string, max = ERROR_LINE_CHARS): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length <= max ? flat : `${flat.slice(0, max - 1)}…`;
}

/** The output inside the envelopes tools wrap it in. */
function body(text: string): string {
  return text
    .replace(RETURN_CODE, "")
    .replace(/^\s*<output>\n?/, "")
    .replace(/<\/output>\s*$/, "")
    .replace(/^\s*<warning>[\s\S]*?<\/warning>\s*/, "")
    .replace(CLAUDE_EXIT, "")
    .replace(TRAILING_EXIT, "")
    .replace(/<\/?tool_use_error>/g, "");
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

/**
 * Reads a tool result: the recorded status when it says error; else the exit code of the common
 * envelopes (`<returncode>N</returncode>`, Claude Code's `Exit code N`, longrun's `[exit code: N]`),
 * `<tool_use_error>`, or, without any structure, a traceback or an error-looking first line.
 * A read-only command that exits non-zero with no output (grep found nothing) is not a failure.
 */
export function resultOutcome(
  text: string,
  status: ToolStatus | undefined,
  options: { readOnly?: boolean } = {},
): ResultOutcome {
  if (status === "cancelled") return { failed: false, exitCode: null, line: "" };
  const code = text.match(RETURN_CODE)?.[1] ?? text.match(CLAUDE_EXIT)?.[1] ?? text.match(TRAILING_EXIT)?.[1];
  const exitCode = code === undefined ? null : Number(code);
  let failed = status === "error" || (exitCode !== null && exitCode !== 0) || TOOL_USE_ERROR.test(text);
  if (!failed && exitCode === null && status !== "ok") {
    const first = body(text).trimStart().split("\n", 1)[0] ?? "";
    failed = text.includes(TRACEBACK) || UNSTRUCTURED_FAILURE.test(first.trim());
  }
  if (!failed && exitCode === null && status === "ok" && text.includes(TRACEBACK)) {
    // A recorded "ok" from a harness that does not know better (replayed transcripts): a traceback
    // as the output's last words is still a failure.
    failed = EXCEPTION_LINE.test(lastLine(body(text)));
  }
  const line = failed ? errorLine(text) : "";
  // A read-only command that printed nothing found nothing (grep 1, xargs grep 123): not a failure.
  if (failed && options.readOnly && exitCode !== null && line === "")
    return { failed: false, exitCode, line };
  return { failed, exitCode, line };
}

function lastLine(text: string): string {
  const lines = text.trimEnd().split("\n");
  return (lines[lines.length - 1] ?? "").trim();
}
