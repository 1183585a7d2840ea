import type { Dirent } from "node:fs";
import { type FileHandle, lstat, realpath } from "node:fs/promises";
import path from "node:path";
import { createInside, isInside, openInside, READ, READ_WRITE, readDirInside } from "./safe-fs.ts";
import { ToolError } from "./types.ts";

/** A path inside the workspace: the real absolute path and its workspace-relative posix form. */
export interface ResolvedPath {
  absolute: string;
  relative: string;
}

/** The thread's workspace, with every path confined to its real root. */
export interface Workspace {
  root: string;
  /** Resolve a model-supplied path; refuses `..` escapes, outside absolute paths and escaping symlinks. */
  resolve(input: string, options?: { allowMissing?: boolean }): Promise<ResolvedPath>;
  /** Workspace-relative posix path of a real absolute path inside the workspace. */
  relative(absolute: string): string;
  /**
   * Opens a regular file for reading (or reading and rewriting); what was opened is checked to be
   * inside, so a path swapped for a symlink after `resolve` is refused, not followed.
   */
  openFile(target: ResolvedPath, mode?: "read" | "readWrite"): Promise<FileHandle>;
  /** Creates or truncates a file, creating missing folders, through verified folder descriptors. */
  createFile(target: ResolvedPath): Promise<{ handle: FileHandle; existed: boolean }>;
  /** The entries of a folder, read from a descriptor checked to be inside. */
  readDir(target: ResolvedPath): Promise<Dirent[]>;
}

function errorCode(error: unknown): string | undefined {
  return typeof error === "object" && error !== null && "code" in error ? String(error.code) : undefined;
}

async function isSymlink(absolute: string): Promise<boolean> {
  try {
    return (await lstat(absolute)).isSymbolicLink();
  } catch {
    // Nothing at that path: not a symlink.
    return false;
  }
}

/** Open a workspace; its root is the real path of `dir` (symlinks in the root itself are fine). */
export async function openWorkspace(dir: string): Promise<Workspace> {
  const configured = path.resolve(dir);
  let root: string;
  try {
    root = await realpath(configured);
  } catch {
    throw new ToolError("workspace_unavailable", `The workspace folder is not available: ${dir}`);
  }
  const relative = (absolute: string): string => {
    const rel = path.relative(root, absolute);
    return rel === "" ? "." : rel.split(path.sep).join("/");
  };

  // For a path that does not exist yet: the real path of its nearest existing ancestor plus the rest.
  // A dangling symlink anywhere on the way is refused, since writing through it could land outside.
  async function realMissing(input: string, lexical: string): Promise<string> {
    const rest: string[] = [];
    let current = lexical;
    for (;;) {
      if (await isSymlink(current)) {
        throw new ToolError("outside_workspace", `Path "${input}" goes through a dangling symlink; refused.`);
      }
      rest.unshift(path.basename(current));
      const parent = path.dirname(current);
      if (parent === current) throw new ToolError("invalid_argument", `Path "${input}" cannot be resolved.`);
      try {
        return path.join(await realpath(parent), ...rest);
      } catch (error) {
        if (errorCode(error) !== "ENOENT") throw error;
        current = parent;
      }
    }
  }

  async function resolve(input: string, options: { allowMissing?: boolean } = {}): Promise<ResolvedPath> {
    if (input.includes("\0")) throw new ToolError("invalid_argument", "Path contains a NUL character.");
    const trimmed = input.trim() === "" ? "." : input;
    let lexical: string;
    if (path.isAbsolute(trimmed)) {
      const normal = path.normalize(trimmed);
      // An absolute path is accepted only when it already points inside the workspace.
      if (isInside(root, normal)) lexical = normal;
      else if (isInside(configured, normal)) lexical = path.join(root, path.relative(configured, normal));
      else
        throw new ToolError(
          "outside_workspace",
          `Path "${input}" is outside the workspace; use a path relative to it.`,
        );
    } else {
      lexical = path.resolve(root, trimmed);
      if (!isInside(root, lexical)) {
        throw new ToolError(
          "outside_workspace",
          `Path "${input}" escapes the workspace; use a path inside it.`,
        );
      }
    }
    let real: string;
    try {
      real = await realpath(lexical);
    } catch (error) {
      if (errorCode(error) !== "ENOENT") throw error;
      if (!options.allowMissing) throw new ToolError("not_found", `No such file or directory: ${input}`);
      real = await realMissing(input, lexical);
    }
    if (!isInside(root, real)) {
      throw new ToolError(
        "outside_workspace",
        `Path "${input}" leads outside the workspace through a symlink; refused.`,
      );
    }
    return { absolute: real, relative: relative(real) };
  }

  async function openFile(target: ResolvedPath, mode: "read" | "readWrite" = "read"): Promise<FileHandle> {
    const { handle } = await openInside(
      root,
      target.absolute,
      mode === "read" ? READ : READ_WRITE,
      target.relative,
    );
    const info = await handle.stat();
    if (info.isFile()) return handle;
    await handle.close();
    throw new ToolError(
      info.isDirectory() ? "is_directory" : "not_regular_file",
      info.isDirectory()
        ? `${target.relative} is a directory; use list_dir.`
        : `${target.relative} is not a regular file; refused.`,
    );
  }

  return {
    root,
    resolve,
    relative,
    openFile,
    createFile: (target) => createInside(root, target.absolute, target.relative),
    readDir: (target) => readDirInside(root, target.absolute, target.relative),
  };
}
