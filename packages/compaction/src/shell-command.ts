/**
 * Decides whether a shell command line only reads. Conservative: anything not understood is
 * a write, so it is never collapsed.
 */

const READERS = new Set([
  "cat",
  "head",
  "tail",
  "nl",
  "wc",
  "ls",
  "tree",
  "pwd",
  "echo",
  "sort",
  "uniq",
  "cut",
  "file",
  "stat",
  "true",
  "diff",
  "basename",
  "dirname",
  "realpath",
  "which",
]);
const SEARCHERS = new Set(["grep", "egrep", "fgrep", "rg", "find", "ag"]);
const GIT_READS = new Set(["show", "log", "diff", "status", "blame", "ls-files", "grep", "rev-parse"]);
const FIND_WRITES = new Set(["-ok", "-okdir", "-delete", "-fprint", "-fprintf", "-fls"]);
const FIND_EXEC = new Set(["-exec", "-execdir"]);
// Redirections that write nothing: discarding output or merging stderr into stdout.
const HARMLESS_REDIRECT = /(^|\s)(\d?>{1,2}\s*\/dev\/null|\d?>&\d|&>\s*\/dev\/null)(?=\s|$)/g;

/** What a read-only command does: read files or search for them. */
export type ShellReadKind = "read" | "search";

/** Splits a command line on && || ; | and newlines outside quotes; null when quoting is broken. */
export function splitSegments(command: string): string[] | null {
  const segments: string[] = [];
  let current = "";
  let quote: "'" | '"' | null = null;
  for (let index = 0; index < command.length; index++) {
    const char = command[index] as string;
    if (quote) {
      if (char === quote) quote = null;
      else if (char === "\\" && quote === '"') {
        current += char + (command[index + 1] ?? "");
        index++;
        continue;
      }
      current += char;
      continue;
    }
    if (char === "'" || char === '"') {
      quote = char;
      current += char;
      continue;
    }
    if (char === "\\") {
      current += char + (command[index + 1] ?? "");
      index++;
      continue;
    }
    const redirectAmpersand = char === "&" && (command[index - 1] === ">" || command[index + 1] === ">");
    if (!redirectAmpersand && (char === ";" || char === "\n" || char === "|" || char === "&")) {
      const next = command[index + 1];
      if ((char === "&" || char === "|") && next === char) index++;
      else if (char === "&") return null; // background job or odd syntax
      segments.push(current);
      current = "";
      continue;
    }
    current += char;
  }
  if (quote) return null;
  segments.push(current);
  return segments.map((segment) => segment.trim()).filter((segment) => segment.length > 0);
}

/** Words of one segment, quotes removed. */
export function words(segment: string): string[] {
  const result: string[] = [];
  const pattern = /'([^']*)'|"((?:\\.|[^"\\])*)"|(\S+)/g;
  for (const match of segment.matchAll(pattern)) result.push(match[1] ?? match[2] ?? match[3] ?? "");
  return result;
}

/** Whether an unquoted `>` (a write redirection) or command substitution remains. */
function hasUnsafeSyntax(segment: string): boolean {
  const unquoted = segment.replace(/'[^']*'/g, "''").replace(/"(?:\\.|[^"\\])*"/g, (quoted) => {
    return quoted.includes("$(") || quoted.includes("`") ? "$(" : '""';
  });
  const stripped = unquoted.replace(HARMLESS_REDIRECT, " ");
  return /[<>`]|\$\(/.test(stripped);
}

/** `find` reads unless it deletes, writes a file, or -exec's something that is not a reader. */
function findKind(args: string[]): ShellReadKind | "write" {
  for (let index = 0; index < args.length; index++) {
    const arg = args[index] as string;
    if (FIND_WRITES.has(arg)) return "write";
    if (!FIND_EXEC.has(arg)) continue;
    const end = args.findIndex(
      (candidate, at) => at > index && (candidate === ";" || candidate === "\\;" || candidate === "+"),
    );
    if (end < 0 || segmentKind(args.slice(index + 1, end)) === "write") return "write";
    index = end;
  }
  return "search";
}

function segmentKind(argv: string[]): ShellReadKind | "write" {
  let rest = argv;
  while (rest[0] !== undefined && /^[A-Za-z_][A-Za-z0-9_]*=/.test(rest[0])) rest = rest.slice(1);
  const [program, ...args] = rest;
  if (program === undefined) return "read";
  if (program === "cd") return "read";
  if (program === "xargs") {
    const commandAt = args.findIndex((arg) => !arg.startsWith("-"));
    return commandAt < 0 ? "write" : segmentKind(args.slice(commandAt));
  }
  if (READERS.has(program)) return "read";
  if (SEARCHERS.has(program)) {
    if (program === "find") return findKind(args);
    return "search";
  }
  if (program === "sed") {
    const inPlace = args.some((arg) => arg.startsWith("-i") || arg === "--in-place");
    const quiet = args.includes("-n") || args.some((arg) => /^-[a-zA-Z]*n[a-zA-Z]*$/.test(arg));
    return !inPlace && quiet ? "read" : "write";
  }
  if (program === "git") {
    let index = 0;
    while (args[index]?.startsWith("-")) index += args[index] === "-C" ? 2 : 1;
    const sub = args[index];
    return sub !== undefined && GIT_READS.has(sub) ? "read" : "write";
  }
  return "write";
}

/**
 * Classifies a shell command line: "read"/"search" when every segment only reads (readers chained
 * with && ; | or ||, a `cd X &&` prefix allowed), else "write" (redirection, sed -i, tee, rm,
 * python, anything unknown).
 */
export function classifyShellCommand(command: string): ShellReadKind | "write" {
  const segments = splitSegments(command);
  if (segments === null || segments.length === 0) return "write";
  let kind: ShellReadKind = "read";
  for (const segment of segments) {
    if (hasUnsafeSyntax(segment)) return "write";
    const segmentResult = segmentKind(words(segment));
    if (segmentResult === "write") return "write";
    if (segmentResult === "search") kind = "search";
  }
  return kind;
}
