import { open } from "node:fs/promises";

/** Bytes inspected to decide whether a file is binary. */
const SNIFF_BYTES = 8000;

/** True when the buffer looks binary (a NUL byte early on, as git and grep decide). */
export function looksBinary(buffer: Uint8Array): boolean {
  return buffer.subarray(0, SNIFF_BYTES).includes(0);
}

/** True when the file at `absolute` starts with a NUL byte within its first 8000 bytes. */
export async function isBinaryFile(absolute: string): Promise<boolean> {
  const handle = await open(absolute, "r");
  try {
    const buffer = new Uint8Array(SNIFF_BYTES);
    const { bytesRead } = await handle.read(buffer, 0, SNIFF_BYTES, 0);
    return looksBinary(buffer.subarray(0, bytesRead));
  } finally {
    await handle.close();
  }
}

/** Split file text into lines, without a phantom empty line after a final newline. */
export function splitLines(text: string): string[] {
  if (text === "") return [];
  const lines = text.split(/\r?\n/);
  if (lines[lines.length - 1] === "") lines.pop();
  return lines;
}
