import type { LedgerFileAction } from "@longrun/protocol";
import { classifyShellCommand, splitSegments } from "../shell-command.ts";
import { patchEffects } from "./patch-effects.ts";
import { segmentParts, splitHeredocs } from "./shell-words.ts";

/** A file a call read (with a line span when it named one). */
export interface FileRead {
  path: string;
  lines?: string;
}

/** A file a call changed. */
export interface FileChange {
  path: string;
  action: LedgerFileAction;
}

/** What a shell command line did to files, as far as its text says. */
export interface ShellEffects {
  reads: FileRead[];
  changes: FileChange[];
  /** Not read-only: worth recording with its exit code. */
  changesSomething: boolean;
}

const READERS = new Set(["cat", "nl", "head", "tail", "less", "more", "bat", "batcat"]);
/** Options of head/tail/cat/nl that take a value. */
const VALUE_OPTIONS = new Set(["-n", "-c", "-b", "-s", "-v", "-w", "--lines", "--bytes"]);
const INTERPRETERS = /^(python[\d.]*|pypy3?|node|ruby|perl|php)$/;
const SHELLS = new Set(["sh", "bash", "zsh", "dash"]);
const PYTHON_WRITE =
  /\bopen\(\s*(?:r|f)?['"]([^'"\n]+)['"]\s*,\s*(?:mode\s*=\s*)?['"]([wax]\+?b?|r\+b?)['"]|\bPath\(\s*['"]([^'"\n]+)['"]\s*\)\s*\.write_(?:text|bytes)\(/g;

function isPathLike(word: string): boolean {
  if (word.length === 0 || word.length > 300 || word === "-" || word.startsWith("-")) return false;
  if (/[*?[\]{}$`\n]/.test(word) || /^\d+$/.test(word)) return false;
  return !word.startsWith("/dev/") && !/^[a-z]+:\/\//i.test(word);
}

function clean(path: string): string {
  return path.replace(/^\.\//, "");
}

/** Operands of a command: words that are not options (and not the values of `valueOptions`). */
function operands(args: readonly string[], valueOptions: ReadonlySet<string> = new Set()): string[] {
  const result: string[] = [];
  let afterDashes = false;
  for (let index = 0; index < args.length; index++) {
    const arg = args[index] as string;
    if (!afterDashes && arg === "--") {
      afterDashes = true;
      continue;
    }
    if (!afterDashes && arg.startsWith("-") && arg !== "-") {
      if (valueOptions.has(arg)) index++;
      continue;
    }
    result.push(arg);
  }
  return result;
}

/** `sed -n '10,40p' file` → "10-40"; `head -n 20` → "1-20". */
function sedSpan(script: string): string | undefined {
  const match = script.match(/^(\d+)(?:,(\d+|\$))?p$/);
  if (!match) return undefined;
  return `${match[1]}-${match[2] === undefined ? match[1] : match[2]}`;
}

function headSpan(args: readonly string[]): string | undefined {
  for (let index = 0; index < args.length; index++) {
    const arg = args[index] as string;
    const count = arg === "-n" ? args[index + 1] : arg.match(/^-n?(\d+)$/)?.[1];
    if (count !== undefined && /^\d+$/.test(count)) return `1-${count}`;
  }
  return undefined;
}

/** sed: files after the script (or all operands when the script came with -e/-f). */
function sedFiles(args: readonly string[]): { files: string[]; script: string | null } {
  const scripted = args.some((arg) => arg === "-e" || arg === "-f" || arg.startsWith("--expression"));
  const rest = operands(args, new Set(["-e", "-f", "-l", "--expression", "--file"]));
  if (scripted) return { files: rest, script: null };
  return { files: rest.slice(1), script: rest[0] ?? null };
}

/** Interpreter code seen on the command line (arguments of python, node, perl…). */
interface InterpreterCode {
  seen: boolean;
  texts: string[];
}

function segmentEffects(argv: readonly string[], effects: ShellEffects, code: InterpreterCode): void {
  let rest = argv;
  while (rest[0] !== undefined && /^[A-Za-z_][A-Za-z0-9_]*=/.test(rest[0])) rest = rest.slice(1);
  if (rest[0] === "sudo" || rest[0] === "time" || rest[0] === "command") rest = rest.slice(1);
  const [program, ...args] = rest;
  if (program === undefined) return;
  const add = (action: LedgerFileAction, paths: readonly string[]) => {
    for (const path of paths) if (isPathLike(path)) effects.changes.push({ path: clean(path), action });
  };
  const read = (paths: readonly string[], lines?: string) => {
    for (const path of paths) {
      if (isPathLike(path)) effects.reads.push({ path: clean(path), ...(lines ? { lines } : {}) });
    }
  };
  const name = program.split("/").pop() ?? program;
  if (READERS.has(name)) {
    read(operands(args, VALUE_OPTIONS), name === "head" ? headSpan(args) : undefined);
    return;
  }
  switch (name) {
    case "sed": {
      const inPlace = args.some((arg) => /^-[a-zA-Z]*i/.test(arg) || arg.startsWith("--in-place"));
      const { files, script } = sedFiles(args);
      if (inPlace) add("edited", files);
      else if (args.includes("-n") || args.some((arg) => /^-[a-zA-Z]*n[a-zA-Z]*$/.test(arg))) {
        read(files, script === null ? undefined : sedSpan(script));
      }
      return;
    }
    case "perl":
      if (args.some((arg) => /^-[a-zA-Z]*i/.test(arg))) add("edited", sedFiles(args).files);
      else {
        code.seen = true;
        code.texts.push(...args);
      }
      return;
    case "tee":
      add(args.includes("-a") || args.includes("--append") ? "appended" : "written", operands(args));
      return;
    case "touch":
      add("written", operands(args, new Set(["-d", "-t", "-r"])));
      return;
    case "rm":
    case "unlink":
      add("deleted", operands(args));
      return;
    case "cp":
    case "install": {
      const files = operands(args, new Set(["-t", "-S", "--suffix", "-m", "-o", "-g"]));
      if (files.length >= 2) add("written", files.slice(-1));
      return;
    }
    case "mv": {
      const files = operands(args, new Set(["-t", "-S", "--suffix"]));
      if (files.length < 2) return;
      add("moved", files.slice(0, -1));
      add("written", files.slice(-1));
      return;
    }
    case "git": {
      let at = 0;
      while (args[at]?.startsWith("-")) at += args[at] === "-C" || args[at] === "-c" ? 2 : 1;
      const sub = args[at];
      const gitArgs = args.slice(at + 1);
      if (sub === "restore") add("reverted", operands(gitArgs, new Set(["-s", "--source"])));
      else if (sub === "checkout" && gitArgs.includes("--"))
        add("reverted", gitArgs.slice(gitArgs.indexOf("--") + 1));
      else if (sub === "rm") add("deleted", operands(gitArgs));
      else if (sub === "mv" && gitArgs.length >= 2) {
        add("moved", operands(gitArgs).slice(0, -1));
        add("written", operands(gitArgs).slice(-1));
      }
      return;
    }
    default:
      if (SHELLS.has(name)) {
        const at = args.indexOf("-c");
        const script = at >= 0 ? args[at + 1] : undefined;
        if (script !== undefined) mergeInto(effects, shellEffects(script));
        return;
      }
      if (INTERPRETERS.test(name)) {
        code.seen = true;
        code.texts.push(...args);
      }
  }
}

function mergeInto(target: ShellEffects, source: ShellEffects): void {
  target.reads.push(...source.reads);
  target.changes.push(...source.changes);
  target.changesSomething ||= source.changesSomething;
}

/**
 * Reads and writes named by a shell command line: redirections, `tee`, `sed -i`, `cp`/`mv`/`rm`,
 * `git restore`, heredocs into files, interpreter code that opens files for writing, patches
 * (`git apply`, `patch`, `apply_patch`), and reads by `cat`/`head`/`tail`/`nl`/`sed -n`.
 * What the text does not say (a script's own writes) is not guessed.
 */
export function shellEffects(command: string): ShellEffects {
  const effects: ShellEffects = {
    reads: [],
    changes: [],
    changesSomething: classifyShellCommand(command) === "write",
  };
  const { command: line, bodies } = splitHeredocs(command);
  const segments = splitSegments(line) ?? splitSegments(line.replace(/&(?!&)/g, ";")) ?? [];
  const code: InterpreterCode = { seen: false, texts: [] };
  let patching = false;
  for (const segment of segments) {
    const { argv, outputs } = segmentParts(segment);
    for (const output of outputs) {
      if (isPathLike(output.path)) {
        effects.changes.push({ path: clean(output.path), action: output.append ? "appended" : "written" });
      }
    }
    const program = argv[0]?.split("/").pop();
    if (program === "patch" || program === "apply_patch" || (program === "git" && argv.includes("apply")))
      patching = true;
    segmentEffects(argv, effects, code);
  }
  if (code.seen) {
    for (const text of [...code.texts, ...bodies]) {
      for (const match of text.matchAll(PYTHON_WRITE)) {
        const path = match[1] ?? match[3];
        if (!path || !isPathLike(path)) continue;
        const mode = match[2] ?? "w";
        effects.changes.push({ path: clean(path), action: mode.startsWith("a") ? "appended" : "written" });
      }
    }
  }
  if (patching) for (const body of bodies.length > 0 ? bodies : [command]) pushPatch(effects, body);
  return effects;
}

function pushPatch(effects: ShellEffects, text: string): void {
  for (const change of patchEffects(text)) effects.changes.push(change);
}
