import { z } from "zod";
import { looksBinary, readAll, rewrite } from "./text-file.ts";
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
    // Read and rewrite through one descriptor: the file edited is the file read, checked to be inside.
    const handle = await workspace.openFile(target, "readWrite");
    let text: string;
    let index: number;
    let before: Buffer;
    let after: Buffer;
    try {
      const buffer = await readAll(handle);
      before = buffer;
      if (looksBinary(buffer))
        throw new ToolError("binary_file", `${target.relative} is a binary file; it cannot be edited.`);
      text = buffer.toString("utf8");
      const count = countOccurrences(text, args.oldText);
      if (count === 0) {
        throw new ToolError(
          "edit_mismatch",
          `oldText was not found in ${target.relative}; read the file again and copy the text exactly.`,
        );
      }
      if (count > 1) {
        throw new ToolError(
          "edit_mismatch",
          `oldText appears ${count} times in ${target.relative}; include more surrounding text so it is unique.`,
        );
      }
      index = text.indexOf(args.oldText);
      // Slicing, not String.replace: "$&" and friends in newText must stay literal.
      after = Buffer.from(
        text.slice(0, index) + args.newText + text.slice(index + args.oldText.length),
        "utf8",
      );
      await rewrite(handle, after);
    } finally {
      await handle.close();
    }
    await context.recordRead(target.relative);
    context.recordChange(target.relative, before, after);
    const line = text.slice(0, index).split("\n").length;
    return ok(`Edited ${target.relative} at line ${line}: replaced 1 occurrence.`);
  },
});
