import { z } from "zod";
import { readAll, rewrite } from "./text-file.ts";
import { defineTool, ok, ToolError } from "./types.ts";
import type { ResolvedPath, Workspace } from "./workspace.ts";

const WriteFileArgs = z.object({
  path: z.string().min(1).describe("File path relative to the workspace; missing folders are created."),
  content: z.string().describe("The complete new content of the file."),
});

/** Largest earlier content read for a snapshot before an overwrite (64 MiB). */
const PREVIOUS_MAX_BYTES = 64 * 1024 * 1024;

/**
 * The file's bytes before it is overwritten, for its snapshot; null when there is none, undefined when
 * it could not be read (the write below then fails or overwrites something not a readable file).
 */
async function previousBytes(
  workspace: Workspace,
  target: ResolvedPath,
): Promise<Uint8Array | null | undefined> {
  let handle: Awaited<ReturnType<Workspace["openFile"]>>;
  try {
    handle = await workspace.openFile(target);
  } catch (error) {
    // Nothing there yet is the common case; anything else leaves the earlier content unknown.
    return ToolError.hasCode(error, "not_found") ? null : undefined;
  }
  try {
    // A huge file is not read into memory for its snapshot: its earlier content stays unknown.
    if ((await handle.stat()).size > PREVIOUS_MAX_BYTES) return undefined;
    return await readAll(handle);
  } finally {
    await handle.close();
  }
}

/** write_file: create or overwrite a file with the given content. */
export const writeFileTool = defineTool({
  name: "write_file",
  description: "Create or overwrite a file in the workspace with the given content.",
  schema: WriteFileArgs,
  async run(args, { workspace, context }) {
    const target = await workspace.resolve(args.path, { allowMissing: true });
    const before = await previousBytes(workspace, target);
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
