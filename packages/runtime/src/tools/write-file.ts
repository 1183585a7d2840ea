import { z } from "zod";
import { rewrite } from "./text-file.ts";
import { defineTool, ok } from "./types.ts";

const WriteFileArgs = z.object({
  path: z.string().min(1).describe("File path relative to the workspace; missing folders are created."),
  content: z.string().describe("The complete new content of the file."),
});

/** write_file: create or overwrite a file with the given content. */
export const writeFileTool = defineTool({
  name: "write_file",
  description: "Create or overwrite a file in the workspace with the given content.",
  schema: WriteFileArgs,
  async run(args, { workspace, context }) {
    const target = await workspace.resolve(args.path, { allowMissing: true });
    // Folders and file are created one verified descriptor at a time, so nothing swapped in on the
    // way can redirect the write outside the workspace.
    const { handle, existed } = await workspace.createFile(target);
    try {
      await rewrite(handle, args.content);
    } finally {
      await handle.close();
    }
    await context.recordRead(target.relative);
    const lines = args.content === "" ? 0 : args.content.split("\n").length;
    return ok(
      `${existed ? "Overwrote" : "Created"} ${target.relative} (${args.content.length} characters, ${lines} lines)`,
    );
  },
});
