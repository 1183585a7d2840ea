import { readFile, stat } from "node:fs/promises";
import path from "node:path";
import { z } from "zod";
import { compileGlob } from "./glob-pattern.ts";
import { looksBinary } from "./text-file.ts";
import { defineTool, ok, ToolError } from "./types.ts";
import { walkFiles } from "./walk-files.ts";

const MAX_MATCHES = 200;
const MAX_LINE_CHARS = 300;
const MAX_FILE_BYTES = 2 * 1024 * 1024;

const GrepArgs = z.object({
  pattern: z.string().min(1).describe("JavaScript regular expression to search for, line by line."),
  path: z.string().optional().describe("File or folder to search (default: the workspace root)."),
  glob: z
    .string()
    .optional()
    .describe('Only search files matching this glob, e.g. "*.ts" (no "/": matched against the file name).'),
});

/** grep: regex search over workspace text files; binary, huge, node_modules, .git and .longrun are skipped. */
export const grepTool = defineTool({
  name: "grep",
  description:
    "Search file contents in the workspace with a regular expression. Returns path:line: text for each " +
    `matching line (at most ${MAX_MATCHES}). Binary files, node_modules, .git and .longrun are skipped.`,
  schema: GrepArgs,
  async run(args, { workspace, signal }) {
    let regex: RegExp;
    try {
      regex = new RegExp(args.pattern);
    } catch (error) {
      throw new ToolError(`pattern is not a valid regular expression: ${(error as Error).message}`);
    }
    const filter = args.glob === undefined ? null : compileGlob(args.glob);
    // Like ripgrep: a glob without "/" is matched against the file name at any depth.
    const byName = args.glob !== undefined && !args.glob.includes("/");
    const target = await workspace.resolve(args.path ?? ".");
    const info = await stat(target.absolute);
    const files = info.isDirectory()
      ? walkFiles(workspace, target.absolute, { signal })
      : singleFile(target.absolute, target.relative);

    const lines: string[] = [];
    let matchCount = 0;
    let truncated = false;
    let filesSearched = 0;
    outer: for await (const file of files) {
      if (filter && !filter.test(byName ? path.posix.basename(file.relative) : file.relative)) continue;
      const size = (await stat(file.absolute)).size;
      if (size > MAX_FILE_BYTES) continue;
      const buffer = await readFile(file.absolute);
      if (looksBinary(buffer)) continue;
      filesSearched++;
      const text = buffer.toString("utf8").split(/\r?\n/);
      for (let index = 0; index < text.length; index++) {
        const line = text[index] as string;
        if (!regex.test(line)) continue;
        if (matchCount >= MAX_MATCHES) {
          truncated = true;
          break outer;
        }
        matchCount++;
        const shown = line.length > MAX_LINE_CHARS ? `${line.slice(0, MAX_LINE_CHARS)}…` : line;
        lines.push(`${file.relative}:${index + 1}: ${shown}`);
      }
    }
    if (matchCount === 0) {
      return ok(`No matches for /${args.pattern}/ in ${target.relative} (${filesSearched} files searched)`);
    }
    if (truncated) lines.push(`(stopped after ${MAX_MATCHES} matches; narrow the pattern, path or glob)`);
    return ok(lines.join("\n"));
  },
});

async function* singleFile(absolute: string, relative: string) {
  yield { absolute, relative };
}
