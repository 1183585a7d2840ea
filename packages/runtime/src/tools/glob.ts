import path from "node:path";
import { z } from "zod";
import { compileGlob, literalPrefix } from "./glob-pattern.ts";
import { defineTool, ok, ToolError } from "./types.ts";
import { walkFiles } from "./walk-files.ts";

const MAX_RESULTS = 500;

const GlobArgs = z.object({
  pattern: z
    .string()
    .min(1)
    .describe(
      'Glob relative to the workspace, e.g. "src/**/*.ts" or "*.{json,md}". "**/" matches any depth.',
    ),
});

/** glob: workspace files whose relative path matches a pattern (node_modules, .git and .longrun skipped). */
export const globTool = defineTool({
  name: "glob",
  description:
    "Find files in the workspace by glob pattern (supports **, *, ?, [abc], {a,b}). " +
    "Returns matching file paths, sorted. node_modules, .git and .longrun are skipped.",
  schema: GlobArgs,
  async run(args, { workspace, signal }) {
    if (path.isAbsolute(args.pattern)) {
      throw new ToolError("invalid_argument", "pattern must be relative to the workspace, e.g. src/**/*.ts");
    }
    const pattern = args.pattern.replace(/^\.\//, "");
    const matcher = compileGlob(pattern);
    const prefix = literalPrefix(pattern);
    const start = await workspace.resolve(prefix === "" ? "." : prefix).catch((error: unknown) => {
      // A missing literal folder simply has no matches; escapes still fail.
      if (ToolError.hasCode(error, "not_found")) return null;
      throw error;
    });
    const matches: string[] = [];
    if (start) {
      for await (const file of walkFiles(workspace, start.absolute, { signal })) {
        if (matcher.test(file.relative)) matches.push(file.relative);
      }
    }
    signal?.throwIfAborted(); // a walk cut short by a cancel is not a complete answer
    if (matches.length === 0) return ok(`No files match ${args.pattern}`);
    matches.sort();
    const shown = matches.slice(0, MAX_RESULTS);
    if (matches.length > shown.length) {
      shown.push(`(${matches.length - shown.length} more files not shown; narrow the pattern)`);
    }
    return ok(shown.join("\n"));
  },
});
