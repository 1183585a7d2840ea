import { z } from "zod";
import { looksBinary, readAll, splitLines } from "./text-file.ts";
import { defineTool, ok, ToolError } from "./types.ts";

const MAX_FILE_BYTES = 10 * 1024 * 1024;
const DEFAULT_MAX_LINES = 2000;
const MAX_LINE_CHARS = 2000;

const ReadFileArgs = z.object({
  path: z.string().min(1).describe("File path relative to the workspace."),
  startLine: z.number().int().min(1).optional().describe("First line to show (1-based, inclusive)."),
  endLine: z.number().int().min(1).optional().describe("Last line to show (1-based, inclusive)."),
});

/** read_file: numbered lines of a text file, optionally a line range. */
export const readFileTool = defineTool({
  name: "read_file",
  description:
    "Read a text file in the workspace. Returns numbered lines (line number, tab, text). " +
    `Use startLine/endLine for a range; without them at most ${DEFAULT_MAX_LINES} lines are shown.`,
  schema: ReadFileArgs,
  async run(args, { workspace, context, outputLimit }) {
    const target = await workspace.resolve(args.path);
    const handle = await workspace.openFile(target);
    let buffer: Buffer;
    let fileBytes: number;
    try {
      fileBytes = (await handle.stat()).size;
      if (fileBytes > MAX_FILE_BYTES) {
        throw new ToolError(
          "too_large",
          `${target.relative} is ${fileBytes} bytes, too large to read; use grep to search it.`,
        );
      }
      buffer = await readAll(handle, fileBytes);
    } finally {
      await handle.close();
    }
    if (looksBinary(buffer))
      throw new ToolError("binary_file", `${target.relative} is a binary file (${fileBytes} bytes).`);
    const lines = splitLines(buffer.toString("utf8"));
    if (lines.length === 0) {
      await context.recordRead(target.relative);
      return ok(`(${target.relative} is empty)`);
    }

    const start = args.startLine ?? 1;
    if (start > lines.length) {
      throw new ToolError(
        "invalid_argument",
        `startLine ${start} is past the end: ${target.relative} has ${lines.length} lines.`,
      );
    }
    if (args.endLine !== undefined && args.endLine < start) {
      throw new ToolError("invalid_argument", `endLine ${args.endLine} is before startLine ${start}.`);
    }
    await context.recordRead(target.relative);
    const end = Math.min(args.endLine ?? start + DEFAULT_MAX_LINES - 1, lines.length);
    // Stop at a line boundary before the output limit so the text is never cut mid-line.
    const budget = outputLimit - 200;
    const out: string[] = [];
    let size = 0;
    let last = start - 1;
    for (let number = start; number <= end; number++) {
      let text = lines[number - 1] ?? "";
      if (text.length > MAX_LINE_CHARS) text = `${text.slice(0, MAX_LINE_CHARS)}… [line cut]`;
      const line = `${String(number).padStart(6)}\t${text}`;
      if (size + line.length + 1 > budget && out.length > 0) break;
      out.push(line);
      size += line.length + 1;
      last = number;
    }
    if (last < lines.length) {
      out.push(`(showing lines ${start}-${last} of ${lines.length}; use startLine=${last + 1} to continue)`);
    }
    return ok(out.join("\n"));
  },
});
