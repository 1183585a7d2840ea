import { mkdir, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import { z } from "zod";
import { defineTool, ok, ToolError } from "./types.ts";

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
    const existing = await stat(target.absolute).catch(() => null);
    if (existing?.isDirectory()) throw new ToolError(`${target.relative} is a directory.`);
    // The missing folders are created below the resolved (real) path, so they cannot leave the workspace.
    await mkdir(path.dirname(target.absolute), { recursive: true });
    await writeFile(target.absolute, args.content, "utf8");
    await context.recordRead(target.relative);
    const lines = args.content === "" ? 0 : args.content.split("\n").length;
    return ok(
      `${existing ? "Overwrote" : "Created"} ${target.relative} (${args.content.length} characters, ${lines} lines)`,
    );
  },
});
