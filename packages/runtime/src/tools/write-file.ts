import { z } from "zod";
import { snapshotBytes } from "../snapshots/snapshot-bytes.ts";
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
    // The bytes before the overwrite, for its snapshot (unknown when not a readable file).
    const before = await snapshotBytes(workspace, target);
    // Folders and file are created one verified descriptor at a time, so nothing swapped in on the
    // way can redirect the write outside the workspace.
    const { handle, existed } = await workspace.createFile(target);
    const after = Buffer.from(args.content, "utf8");
    try {
      await rewrite(handle, after);
    } finally {
      await handle.close();
    }
    await context.recordRead(target.relative);
    context.recordChange(target.relative, existed ? before : null, after);
    const lines = args.content === "" ? 0 : args.content.split("\n").length;
    return ok(
      `${existed ? "Overwrote" : "Created"} ${target.relative} (${args.content.length} characters, ${lines} lines)`,
    );
  },
});
