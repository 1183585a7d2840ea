import type { FileHandle } from "node:fs/promises";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { z } from "zod";
import { compileGlob } from "./glob-pattern.ts";
import { compileLinear } from "./linear-regex.ts";
import { looksBinary, readAll } from "./text-file.ts";
import { defineTool, ok, ToolError } from "./types.ts";
import { walkFiles } from "./walk-files.ts";
import type { ResolvedPath, Workspace } from "./workspace.ts";

const MAX_MATCHES = 200;
const MAX_LINE_CHARS = 300;
const MAX_FILE_BYTES = 2 * 1024 * 1024;
/** Longest stretch of matching work between two turns of the event loop. */
const SLICE_MS = 10;
const LINES_PER_CHECK = 256;

const GrepArgs = z.object({
  pattern: z
    .string()
    .min(1)
    .describe(
      "Regular expression (RE2 syntax, like JavaScript's without backreferences or lookaround) to " +
        "search for, line by line. (?i) makes it case-insensitive.",
    ),
  path: z.string().optional().describe("File or folder to search (default: the workspace root)."),
  glob: z
    .string()
    .optional()
    .describe('Only search files matching this glob, e.g. "*.ts" (no "/": matched against the file name).'),
});

/**
 * grep: regex search over workspace text files; binary, huge, node_modules, .git and .longrun are
 * skipped. Matching is linear-time (RE2) and the search gives the event loop back every few
 * milliseconds, so no pattern or file can hold the process and a cancel always lands.
 */
export const grepTool = defineTool({
  name: "grep",
  description:
    "Search file contents in the workspace with a regular expression. Returns path:line: text for each " +
    `matching line (at most ${MAX_MATCHES}). Binary files, node_modules, .git and .longrun are skipped.`,
  schema: GrepArgs,
  async run(args, { workspace, signal }) {
    const regex = compileLinear(args.pattern);
    const filter = args.glob === undefined ? null : compileGlob(args.glob);
    // Like ripgrep: a glob without "/" is matched against the file name at any depth.
    const byName = args.glob !== undefined && !args.glob.includes("/");
    const target = await workspace.resolve(args.path ?? ".");
    const isFolder = await workspace
      .readDir(target)
      .then(() => true)
      .catch((error: unknown) => {
        if (ToolError.hasCode(error, "not_directory")) return false;
        throw error;
      });
    const files = isFolder ? walkFiles(workspace, target.absolute, { signal }) : singleFile(target);

    let sliceStart = performance.now();
    const breathe = async () => {
      if (performance.now() - sliceStart < SLICE_MS) return;
      await new Promise((resolve) => setImmediate(resolve));
      signal?.throwIfAborted();
      sliceStart = performance.now();
    };

    const lines: string[] = [];
    let matchCount = 0;
    let truncated = false;
    let filesSearched = 0;
    outer: for await (const file of files) {
      signal?.throwIfAborted();
      if (filter && !filter.test(byName ? path.posix.basename(file.relative) : file.relative)) continue;
      const text = await readText(workspace, file, !isFolder);
      if (text === null) continue;
      filesSearched++;
      const fileLines = text.split(/\r?\n/);
      for (let index = 0; index < fileLines.length; index++) {
        if (index % LINES_PER_CHECK === 0) await breathe();
        const line = fileLines[index] as string;
        if (!regex.test(line)) continue;
        if (matchCount >= MAX_MATCHES) {
          truncated = true;
          break outer;
        }
        matchCount++;
        const shown = line.length > MAX_LINE_CHARS ? `${line.slice(0, MAX_LINE_CHARS)}…` : line;
        lines.push(`${file.relative}:${index + 1}: ${shown}`);
      }
      await breathe();
    }
    signal?.throwIfAborted(); // a walk cut short by a cancel is not a complete answer
    if (matchCount === 0) {
      return ok(`No matches for /${args.pattern}/ in ${target.relative} (${filesSearched} files searched)`);
    }
    if (truncated) lines.push(`(stopped after ${MAX_MATCHES} matches; narrow the pattern, path or glob)`);
    return ok(lines.join("\n"));
  },
});

/**
 * The text of a file through a verified descriptor, or null for what grep skips: binary, huge,
 * special, or (while walking) refused files. A file named explicitly reports its refusal.
 */
async function readText(workspace: Workspace, file: ResolvedPath, named: boolean): Promise<string | null> {
  let handle: FileHandle;
  try {
    handle = await workspace.openFile(file);
  } catch (error) {
    if (named) throw error;
    return null;
  }
  try {
    const { size } = await handle.stat();
    if (size > MAX_FILE_BYTES) return null;
    const buffer = await readAll(handle, size);
    return looksBinary(buffer) ? null : buffer.toString("utf8");
  } finally {
    await handle.close();
  }
}

async function* singleFile(file: ResolvedPath) {
  yield file;
}
