import type { FileHandle } from "node:fs/promises";

/** Bytes inspected to decide whether a file is binary. */
const SNIFF_BYTES = 8000;

/** True when the buffer looks binary (a NUL byte early on, as git and grep decide). */
export function looksBinary(buffer: Uint8Array): boolean {
  return buffer.subarray(0, SNIFF_BYTES).includes(0);
}

/** Split file text into lines, without a phantom empty line after a final newline. */
export function splitLines(text: string): string[] {
  if (text === "") return [];
  const lines = text.split(/\r?\n/);
  if (lines[lines.length - 1] === "") lines.pop();
  return lines;
}

/** Reads an open file from the start: at most `limit` bytes (default: its size when opened). */
export async function readAll(handle: FileHandle, limit?: number): Promise<Buffer> {
  const size = limit ?? (await handle.stat()).size;
  const buffer = Buffer.alloc(size);
  let filled = 0;
  while (filled < size) {
    const { bytesRead } = await handle.read(buffer, filled, size - filled, filled);
    if (bytesRead === 0) break;
    filled += bytesRead;
  }
  return buffer.subarray(0, filled);
}

/** Replaces the whole content of an open file (text is written as UTF-8). */
export async function rewrite(handle: FileHandle, content: string | Uint8Array): Promise<void> {
  const buffer = typeof content === "string" ? Buffer.from(content, "utf8") : content;
  await handle.truncate(0);
  for (let written = 0; written < buffer.length; ) {
    const { bytesWritten } = await handle.write(buffer, written, buffer.length - written, written);
    written += bytesWritten;
  }
}
