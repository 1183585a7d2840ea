import { createReadStream } from "node:fs";
import { createInterface } from "node:readline";
import { PAGE_BYTE_BUDGET } from "../paging.ts";

/**
 * Lines `offset…offset+limit` of a JSONL history file, read as a stream and cut by bytes too, so a
 * large file is never loaded whole. Null when the file does not exist. A line that is not JSON (a torn
 * write) is returned as its text.
 */
export async function readHistoryPage(
  file: string,
  offset: number,
  limit: number,
  byteBudget = PAGE_BYTE_BUDGET,
): Promise<{ lines: unknown[]; nextOffset: number | null } | null> {
  const stream = createReadStream(file, { encoding: "utf8" });
  const opened = await new Promise<boolean>((resolve) => {
    stream.once("open", () => resolve(true));
    stream.once("error", () => resolve(false));
  });
  if (!opened) return null;
  const reader = createInterface({ input: stream, crlfDelay: Number.POSITIVE_INFINITY });
  const lines: unknown[] = [];
  let index = 0;
  let bytes = 0;
  let nextOffset: number | null = null;
  try {
    for await (const line of reader) {
      if (line.trim().length === 0) continue;
      const position = index++;
      if (position < offset) continue;
      const size = Buffer.byteLength(line);
      if (lines.length === limit || (lines.length > 0 && bytes + size > byteBudget)) {
        nextOffset = position;
        break;
      }
      lines.push(parseLine(line));
      bytes += size;
    }
  } finally {
    reader.close();
    stream.destroy();
  }
  return { lines, nextOffset };
}

function parseLine(line: string): unknown {
  try {
    return JSON.parse(line);
  } catch {
    // A line that is not JSON is shown as the text it is.
    return line;
  }
}
