/**
 * Reading a tool result's own words for failure or success, for results that carry no exit code or
 * status (OpenHands, SWE-agent, Gemini CLI and Cline transcripts). Each shape is one a tool prints
 * when it failed, anchored to where that tool prints it, so a successful output that merely mentions
 * an error (`0 errors`, a grep hit on a source line, a file listing) is not read as one.
 */

/**
 * How much of a result is the tool's own voice: `run` is the output of a command that was not only
 * reading (all of it may report a failure), `look` the output of a read-only command (its content is
 * someone else's text: only the command's own programs and the shell speak), `report` the answer of
 * a non-shell tool (its first line, the editor's own phrases, a traceback that ends it).
 */
export type ResultScope = "run" | "look" | "report";

const TRACEBACK = /^\s*Traceback \(most recent call last\):\s*$/;
/** The exception line that ends a Python traceback (also Java's `x.y.FooException: …`). */
export const EXCEPTION_LINE = /^[A-Za-z_][\w.]*(?:Error|Exception|Exit|Interrupt|Failure|Warning)\b.*$/;
/** `prog: …: No such file or directory` as a program (or the shell) prints it about itself. */
const PROGRAM_COMPLAINT =
  /^((?:\/[\w.+-]+)*\/?[\w.+-]+): (?:line \d+: )?(?:.*: )?(?:command not found|No such file or directory|Permission denied|not found|cannot (?:access|open|stat|create|remove|find)\b.*|can't (?:open|cd|access)\b.*|Is a directory|Not a directory|syntax error.*|unexpected EOF.*|invalid option.*|unrecognized option.*|missing operand.*)$/;
/**
 * Shells that name the missing program elsewhere than first: zsh and fish last (`zsh: command not
 * found: shard-sd`), PowerShell (`open : The term 'open' is not recognized as the name of a cmdlet…`)
 * and cmd (`'open' is not recognized as an internal or external command,`). Group 1 is the program.
 */
const SHELL_NOT_FOUND: readonly RegExp[] = [
  /^(?:zsh|fish|bash|sh): (?:command not found|no such file or directory|permission denied): (\S+)/i,
  /^\S+ : The term '([^']+)' is not recognized as (?:the )?name of a cmdlet\b/,
  /^'([^']+)' is not recognized as an internal or external command\b/,
];
const SHELL_SYNTAX = /(?:^|: )syntax error near unexpected token\b|^\S+: line \d+: syntax error\b/;
/** Failure shapes of compilers, runtimes, test runners and build tools, as whole lines. */
const RUN_FAILURES: readonly RegExp[] = [
  /^(?:\S+?):\d+(?::\d+)?: (?:fatal )?error\b/, // gcc, clang, go vet, mypy: file:line:col: error
  /^\S+?\(\d+,\d+\): error TS\d+/, // tsc
  /^\S+?:\d+:\d+ - error TS\d+/, // tsc --pretty
  /^error TS\d+:/,
  /^error(?:\[E\d+\])?: /, // rustc, cargo, git
  /^(?:fatal|FATAL|Fatal error): /,
  /^panic: /, // go
  /^Exception in thread "[^"]*" /, // java
  /^Segmentation fault\b/,
  /^--- FAIL: /, // go test
  /^FAIL(?:\s|$)/, // go test, jest
  /^\s*FAIL\s+\S/, // vitest, jest (indented)
  /^FAILED(?:\s|$)/, // pytest short summary, unittest
  /^=+ .*\b[1-9]\d* (?:failed|errors?)\b.*=+$/, // pytest summary line
  /^=+ (?:ERRORS|FAILURES) =+$/,
  /^test result: FAILED\b/, // cargo test
  /^Tests?:?\s+.*\b[1-9]\d* failed\b/, // jest, vitest
  /^Test Files\s+[1-9]\d* failed\b/,
  /^\s*[1-9]\d* failing$/, // mocha
  /^make(?:\[\d+\])?: \*\*\* .*Error \d+/,
  /^npm (?:ERR!|error) /,
  /^(?:Found|found) [1-9]\d* errors?\b/, // ruff, mypy, tsc, biome
  /^✖ [1-9]\d* problems? \([1-9]\d* errors?/, // eslint
  /^\S+:\d+:\d+: [EF]\d{3} /, // flake8 errors (E/F codes)
  /^Killed$/,
  /^\[ERROR\] (?!\s*$)/, // maven: every [ERROR] line is one (a clean build prints none)
  /^\[INFO\] BUILD FAILURE$/,
  /^BUILD FAILED\b/, // gradle, ant
  /^FAILURE: Build failed\b/, // gradle
  /^CMake Error\b/,
  /^-- Configuring incomplete, errors occurred!/, // cmake
  /^[1-9]\d* errors?$/, // javac, scalac: the closing count
  /^E: /, // apt, dpkg
  /^ERROR: (?!pip's dependency resolver does not currently)/, // pip (its resolver notice comes with a successful install), and tools that shout
  /^\[The command timed out after \d+ seconds\b/, // OpenHands: the command never finished
];
/** A JavaScript error line (`TypeError: x is not a function`), a failure when a stack (`    at …`) follows. */
const JS_ERROR = /^(?:[A-Z]\w*)?(?:Error|Exception)(?: \[\w+\])?: /;
/** How a non-shell tool (or a harness) says the call failed, on its first line. */
const REPORT_PREFIX =
  /^(?:Error|ERROR|error)(?:\s*\[[^\]]*\])?:(?!\s*\(none\))|^\[ERROR\]|^<error>|^Failed to |^The tool execution failed\b|^(?:File|Path|Directory) .* (?:not found|does not exist)\b|^No such file or directory\b|^Permission denied\b|^Usage: |^usage: /;
/** Editor phrases that say nothing was done, wherever they stand in the answer. */
const REPORT_PHRASES =
  /No replacement was performed|did not appear verbatim in|Your proposed edit has introduced new syntax error|String to replace not found in file|The path \S+ does not exist|is not a valid (?:file|path)|Please provide a valid (?:file|path)/;
/** Success said in words: SWE-agent's no-output line, and test runners' all-passed summaries. */
const SUCCESS_WORDS: readonly RegExp[] = [
  /^Your command ran successfully and did not produce any output\.?$/,
  /^=+ (?:\d+ passed|\d+ passed, \d+ (?:skipped|deselected|xfailed|warnings?))(?:,[^=]*)? in [\d.]+m?s.* =+$/,
  /^test result: ok\./,
  /^ok\s+\S+\s+[\d.]+s$/,
  /^Tests?:?\s+\d+ passed(?:, \d+ total)?$/,
];

function lines(text: string): string[] {
  return text.split("\n").map((line) => line.replace(/\r$/, ""));
}

/** A bare prefix line (`ERROR:`, `<error>`) says little: join it with the line after it. */
function withNext(all: readonly string[], index: number): string {
  const line = (all[index] as string).trim();
  // A line that announces the error (`…failed with the following error:`) is told by what follows.
  if (line.replace(/[^A-Za-z]/g, "").length > 8 && !/\berror:$/i.test(line)) return line;
  const next = all.slice(index + 1).find((other) => other.trim().length > 0);
  return next === undefined ? line : `${line} ${next.trim()}`;
}

/** The exception line after a `Traceback (most recent call last):` line, or null. */
function tracebackLine(all: readonly string[], onlyAtEnd: boolean): string | null {
  const start = all.findIndex((line) => TRACEBACK.test(line));
  if (start < 0) return null;
  const rest = all.slice(start + 1).map((line) => line.trim());
  const nonBlank = rest.filter((line) => line.length > 0);
  const last = nonBlank[nonBlank.length - 1];
  if (onlyAtEnd) return last !== undefined && EXCEPTION_LINE.test(last) ? last : null;
  for (let index = rest.length - 1; index >= 0; index--) {
    const line = rest[index] as string;
    if (EXCEPTION_LINE.test(line) && !line.startsWith("File ")) return line;
  }
  return null;
}

/** Whether a line is a program's own complaint, from one of `programs` (any program when null). */
function programComplaint(line: string, programs: readonly string[] | null): boolean {
  for (const shape of SHELL_NOT_FOUND) {
    const missing = line.match(shape)?.[1];
    // A read-only command's output (a README quoting the error) counts only for its own programs.
    if (missing !== undefined)
      return programs === null || programs.includes(missing.split(/[\\/]/).pop() as string);
  }
  const match = line.match(PROGRAM_COMPLAINT);
  if (!match) return SHELL_SYNTAX.test(line);
  const name = (match[1] as string).split("/").pop() as string;
  if (/^(?:ba|z|da|k)?sh$/.test(name)) return true;
  return programs === null || programs.includes(name);
}

/**
 * The line of `text` that shows the call failed, read in `scope`; null when its words show no
 * failure. `programs` are the command's programs (a read-only command's output is only trusted when
 * one of them, or the shell, speaks).
 */
export function failureInText(
  text: string,
  scope: ResultScope,
  programs: readonly string[] | null = null,
): string | null {
  const all = lines(text);
  const firstIndex = all.findIndex((line) => line.trim().length > 0);
  if (firstIndex < 0) return null;
  const first = (all[firstIndex] as string).trim();
  if (scope === "report") {
    if (REPORT_PREFIX.test(first) || programComplaint(first, null)) return withNext(all, firstIndex);
    const phrase = all.find((line) => REPORT_PHRASES.test(line));
    if (phrase !== undefined) return phrase.trim();
    return tracebackLine(all, true);
  }
  if (scope === "look") {
    const complaint = all.find((line) => programComplaint(line.trim(), programs));
    return complaint === undefined ? null : complaint.trim();
  }
  const traceback = tracebackLine(all, false);
  if (traceback !== null) return traceback;
  for (let index = 0; index < all.length; index++) {
    const line = (all[index] as string).trim();
    if (programComplaint(line, null) || RUN_FAILURES.some((shape) => shape.test(line))) {
      return withNext(all, index);
    }
    if (JS_ERROR.test(line) && /^\s+at /.test(all[index + 1] ?? "")) return line;
  }
  return REPORT_PREFIX.test(first) && !/^(?:usage|Usage): /.test(first) ? withNext(all, firstIndex) : null;
}

/** Whether `text` says in words that the call succeeded (and shows no failure in scope `run`). */
export function successInText(text: string): boolean {
  return lines(text).some((line) => SUCCESS_WORDS.some((shape) => shape.test(line.trim())));
}
