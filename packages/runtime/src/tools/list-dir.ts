import type { Dirent } from "node:fs";
import { z } from "zod";
import { defineTool, ok, ToolError } from "./types.ts";

const MAX_ENTRIES = 1000;

const ListDirArgs = z.object({
  path: z.string().optional().describe("Folder relative to the workspace (default: the workspace root)."),
});

/** list_dir: the entries of one folder; folders end with "/", symlinks with "@". */
export const listDirTool = defineTool({
  name: "list_dir",
  description:
    'List a folder in the workspace. Folders end with "/", symlinks with "@". Not recursive; use glob for that.',
  schema: ListDirArgs,
  async run(args, { workspace }) {
    const target = await workspace.resolve(args.path ?? ".");
    let entries: Dirent[];
    try {
      entries = await workspace.readDir(target);
    } catch (error) {
      if (ToolError.hasCode(error, "not_directory")) {
        throw new ToolError("not_directory", `${target.relative} is a file, not a folder; use read_file.`);
      }
      throw error;
    }
    if (entries.length === 0) return ok(`(${target.relative} is empty)`);
    const names = entries
      .map((entry) => entry.name + (entry.isDirectory() ? "/" : entry.isSymbolicLink() ? "@" : ""))
      .sort();
    const shown = names.slice(0, MAX_ENTRIES);
    if (names.length > shown.length) shown.push(`(${names.length - shown.length} more entries not shown)`);
    return ok(shown.join("\n"));
  },
});
