import { constants, type Dirent, existsSync } from "node:fs";
import { type FileHandle, mkdir, open, readdir, readlink, realpath, stat } from "node:fs/promises";
import path from "node:path";
import { ToolError } from "./types.ts";

/**
 * Opening files inside a workspace without a check-then-use race. A path checked by name and then
 * opened again by name can be swapped for a symlink in between (issue 10: 77 of 1,000 reads
 * returned an outside file). Here the check is on what was opened: the final component is opened
 * with O_NOFOLLOW, and the descriptor's own path (/proc/self/fd/N on Linux) must lie inside the
 * root, so a folder on the way swapped for a symlink is caught too. New files are created through
 * a verified folder descriptor (/proc/self/fd/N/name, the effect of openat), so a write never lands
 * outside, even for a moment. Without /proc the same checks run on names and inode numbers, with a
 * small window left for folders swapped on the way.
 *
 * Limit: a hard link inside the workspace to an outside file is the same file; Linux only allows
 * linking files the linker may write (fs.protected_hardlinks), and no tool creates links.
 */

const { O_RDONLY, O_RDWR, O_WRONLY, O_CREAT, O_EXCL, O_NOFOLLOW, O_NONBLOCK, O_DIRECTORY } = constants;
const PROC_FD = existsSync("/proc/self/fd") ? "/proc/self/fd" : null;

/** Read a file; no symlink followed at the last step; a FIFO does not block the open. */
export const READ = O_RDONLY | O_NOFOLLOW | O_NONBLOCK;
/** Read and rewrite a file in place. */
export const READ_WRITE = O_RDWR | O_NOFOLLOW | O_NONBLOCK;
const DIRECTORY = O_RDONLY | O_DIRECTORY | O_NOFOLLOW;

function errorCode(error: unknown): string | undefined {
  return typeof error === "object" && error !== null && "code" in error ? String(error.code) : undefined;
}

/** True when `candidate` is `root` or below it. */
export function isInside(root: string, candidate: string): boolean {
  const rel = path.relative(root, candidate);
  return rel === "" || (rel !== ".." && !rel.startsWith(`..${path.sep}`) && !path.isAbsolute(rel));
}

/** An open file or folder whose real path was checked after opening. */
export interface Opened {
  handle: FileHandle;
  /** Real absolute path of what was opened. */
  real: string;
}

/** The real path of an open descriptor: the kernel's own record on Linux, else by name and inode. */
async function openedPath(handle: FileHandle, name: string): Promise<string> {
  if (PROC_FD) return (await readlink(`${PROC_FD}/${handle.fd}`)).replace(/ \(deleted\)$/, "");
  const real = await realpath(name);
  const [named, opened] = await Promise.all([stat(real), handle.stat()]);
  if (named.ino !== opened.ino || named.dev !== opened.dev) {
    throw new ToolError("changed_meanwhile", `${name} changed while it was being opened; refused.`);
  }
  return real;
}

/**
 * Opens `absolute` (a real path inside `root`) with `flags` and checks that what was opened is
 * inside `root`. `shown` names the path in errors.
 */
export async function openInside(
  root: string,
  absolute: string,
  flags: number,
  shown: string,
): Promise<Opened> {
  let handle: FileHandle;
  try {
    handle = await open(absolute, flags | O_NOFOLLOW);
  } catch (error) {
    const code = errorCode(error);
    if (code === "ELOOP" || code === "EMLINK") {
      throw new ToolError(
        "changed_meanwhile",
        `${shown} was replaced by a symlink while it was being opened; refused.`,
      );
    }
    if (code === "ENOENT") throw new ToolError("not_found", `No such file or directory: ${shown}`);
    if (code === "EISDIR") throw new ToolError("is_directory", `${shown} is a directory.`);
    if (code === "ENOTDIR") throw new ToolError("not_directory", `${shown} is not a directory.`);
    throw error;
  }
  try {
    const real = await openedPath(handle, absolute);
    if (!isInside(root, real)) {
      throw new ToolError(
        "outside_workspace",
        `Path "${shown}" leads outside the workspace through a symlink; refused.`,
      );
    }
    return { handle, real };
  } catch (error) {
    await handle.close();
    throw error;
  }
}

/** The entries of a folder inside `root`, read from a descriptor checked to be inside. */
export async function readDirInside(root: string, absolute: string, shown: string): Promise<Dirent[]> {
  const { handle, real } = await openInside(root, absolute, DIRECTORY, shown);
  try {
    return await readdir(PROC_FD ? `${PROC_FD}/${handle.fd}` : real, { withFileTypes: true });
  } finally {
    await handle.close();
  }
}

/** A name inside an open folder: through its descriptor on Linux, so a swapped path is not followed. */
function childOf(folder: Opened, name: string): string {
  return PROC_FD ? `${PROC_FD}/${folder.handle.fd}/${name}` : path.join(folder.real, name);
}

/**
 * Opens `absolute` (inside `root`) for writing, creating it and the folders above it as needed,
 * one verified folder at a time; nothing on the way is followed. Returns the handle (truncated
 * to empty) and whether the file existed.
 */
export async function createInside(
  root: string,
  absolute: string,
  shown: string,
): Promise<{ handle: FileHandle; existed: boolean }> {
  const parts = path.relative(root, absolute).split(path.sep);
  const base = parts.pop();
  if (!base || parts.includes(".."))
    throw new ToolError("outside_workspace", `Path "${shown}" is not a file inside the workspace.`);
  let folder = await openInside(root, root, DIRECTORY, ".");
  try {
    for (const part of parts) {
      const child = childOf(folder, part);
      await mkdir(child).catch((error: unknown) => {
        if (errorCode(error) !== "EEXIST") throw error;
      });
      const next = await openInside(root, child, DIRECTORY, shown);
      await folder.handle.close();
      folder = next;
    }
    const file = childOf(folder, base);
    // Open an existing file first (to say "Overwrote"), else create it; O_EXCL refuses anything that
    // appeared at that name meanwhile, a symlink included.
    for (let attempt = 0; attempt < 3; attempt++) {
      try {
        const opened = await openInside(root, file, O_WRONLY | O_NONBLOCK, shown);
        if (!(await opened.handle.stat()).isFile()) {
          await opened.handle.close();
          throw new ToolError("not_regular_file", `${shown} is not a regular file.`);
        }
        await opened.handle.truncate(0);
        return { handle: opened.handle, existed: true };
      } catch (error) {
        if (!ToolError.hasCode(error, "not_found")) throw error;
      }
      try {
        const created = await openInside(root, file, O_WRONLY | O_CREAT | O_EXCL, shown);
        return { handle: created.handle, existed: false };
      } catch (error) {
        if (errorCode(error) !== "EEXIST") throw error;
      }
    }
    throw new ToolError("changed_meanwhile", `${shown} keeps changing while it is being written; refused.`);
  } finally {
    await folder.handle.close();
  }
}
