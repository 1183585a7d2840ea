import { readFile, writeFile } from "node:fs/promises";
import { z } from "zod";
import { looksBinary } from "./text-file.ts";
import { defineTool, ok, ToolError } from "./types.ts";

const EditFileArgs = z.object({
  path: z.string().min(1).describe("File path relative to the workspace."),
  oldText: z.string().min(1).describe("Exact text to replace; must occur exactly once in the file."),
  newText: z.string().describe("Replacement text."),
});

function countOccurrences(text: string, search: string): number {
  let count = 0;
  for (let index = text.indexOf(search); index !== -1; index = text.indexOf(search, index + search.length)) {
    count++;
  }
  return count;
}

/** edit_file: replace one exact, unique occurrence of oldText with newText. */
export const editFileTool = defineTool({
  name: "edit_file",
  description:
    "Replace an exact piece of text in a workspace file. oldText must appear exactly once " +
    "(include surrounding lines to make it unique); whitespace and line breaks must match.",
  schema: EditFileArgs,
  async run(args, { workspace, context }) {
    const target = await workspace.resolve(args.path);
    const buffer = await readFile(target.absolute).catch((error: { code?: string }) => {
      if (error.code === "EISDIR") throw new ToolError(`${target.relative} is a directory.`);
      throw error;
    });
    if (looksBinary(buffer)) throw new ToolError(`${target.relative} is a binary file; it cannot be edited.`);
    const text = buffer.toString("utf8");
    const count = countOccurrences(text, args.oldText);
    if (count === 0) {
      throw new ToolError(
        `oldText was not found in ${target.relative}; read the file again and copy the text exactly.`,
      );
    }
    if (count > 1) {
      throw new ToolError(
        `oldText appears ${count} times in ${target.relative}; include more surrounding text so it is unique.`,
      );
    }
    const index = text.indexOf(args.oldText);
    // Slicing, not String.replace: "$&" and friends in newText must stay literal.
    const updated = text.slice(0, index) + args.newText + text.slice(index + args.oldText.length);
    await writeFile(target.absolute, updated, "utf8");
    await context.recordRead(target.relative);
    const line = text.slice(0, index).split("\n").length;
    return ok(`Edited ${target.relative} at line ${line}: replaced 1 occurrence.`);
  },
});
